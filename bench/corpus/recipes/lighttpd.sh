# lighttpd: the `lighttpd` server core (src/lighttpd; the mod_*.so plugins it loads at
# run time are not part of the executable), configured without the optional
# libraries.  Not in build.sh's default PROGRAMS; its configuration parser
# allocates through configparserAlloc(malloc), the case of issue 22 item 1.
SRCPKG=lighttpd
BINARY=src/lighttpd
corpus_build() {
    autoreconf -fi
    ./configure CC="$CC_PLAIN" --without-pcre2 --without-zlib --without-bzip2 --without-zstd --without-brotli \
        --without-openssl --without-lua --without-ldap --without-pam --without-dbi --without-mysql \
        --without-pgsql --without-krb5 --without-sasl --without-xxhash
    make -C src CC="$CC" versionstamp parsers  # BUILT_SOURCES, which only `make all` makes
    make -C src -j"$JOBS" CC="$CC" lighttpd
}
