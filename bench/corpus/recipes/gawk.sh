# gawk: the `gawk` executable with support/libsupport.a (regex, dfa, ...),
# without dynamic extensions, MPFR, readline, NLS and the persistent-memory
# allocator.  No docs, tests or awklib helpers.
SRCPKG=gawk
BINARY=gawk
corpus_build() {
    ./configure CC="$CC_PLAIN" --disable-rpath --disable-nls --disable-extensions \
        --disable-mpfr --without-readline --disable-pma
    make -C support -j"$JOBS" CC="$CC"
    make -j"$JOBS" CC="$CC" gawk
}
