# curl: the `curl` command with libcurl linked in statically (lib/.libs/libcurl.a):
# OpenSSL for TLS and zlib, without the optional libraries (LDAP, libssh2, librtmp,
# libpsl, nghttp2, brotli, zstd, libidn2) and the built-in manual.  Not in
# build.sh's default PROGRAMS; it calls calloc/malloc through the function
# pointers of lib/easy.c (Curl_ccalloc, ...), the case of issue 22 item 1.
SRCPKG=curl
BINARY=src/curl
corpus_build() {
    autoreconf -fi
    ./configure CC="$CC_PLAIN" --disable-shared --enable-static --with-openssl --with-zlib \
        --disable-ldap --disable-ldaps --disable-manual --without-libssh2 --without-librtmp \
        --without-libpsl --without-nghttp2 --without-brotli --without-zstd --without-libidn2
    make -C lib -j"$JOBS" CC="$CC"
    make -C src -j"$JOBS" CC="$CC" curl
}
