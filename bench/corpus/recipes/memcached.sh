# memcached: the `memcached` server (libevent stays shared: its calls are modelled), threads
# and the default engine, without SASL, TLS and seccomp.  Not in build.sh's default PROGRAMS;
# a server whose work is libevent callbacks on worker threads.
SRCPKG=memcached
BINARY=memcached
corpus_build() {
    [ -x configure ] || autoreconf -fi
    ./configure CC="$CC_PLAIN" --disable-sasl --disable-tls --disable-seccomp --disable-docs --disable-coverage
    make -j"$JOBS" CC="$CC" memcached
}
