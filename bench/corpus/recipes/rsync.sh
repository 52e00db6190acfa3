# rsync: the `rsync` executable with its bundled zlib and popt where Debian would link the system
# ones; without xxhash, zstd, lz4, openssl, ACLs and xattrs.  Not in build.sh's default PROGRAMS.
SRCPKG=rsync
BINARY=rsync
corpus_build() {
    [ -x configure ] || autoreconf -fi
    ./configure CC="$CC_PLAIN" --disable-xxhash --disable-zstd --disable-lz4 --disable-openssl \
        --disable-acl-support --disable-xattr-support --disable-md2man --with-included-popt \
        --with-included-zlib
    make -j"$JOBS" CC="$CC" rsync
}
