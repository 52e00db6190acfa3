# zstd: the `zstd` command with the library compiled in (programs/zstd; the makefile builds the
# library's sources into it).  Not in build.sh's default PROGRAMS: a program of none of the
# corpus's shapes (compression contexts of function pointers), built to check the front end and
# the backends on code they were not tuned on.  Without threads, lz4, lzma and zlib support.
SRCPKG=libzstd
BINARY=programs/zstd
corpus_build() {
    make -C programs -j"$JOBS" CC="$CC" HAVE_THREAD=0 HAVE_ZLIB=0 HAVE_LZMA=0 HAVE_LZ4=0 \
        ZSTD_LEGACY_SUPPORT=0 MOREFLAGS="" zstd
}
