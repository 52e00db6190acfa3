# bzip2: the `bzip2` command (bzip2.c) linked statically with libbz2
# (blocksort, huffman, crctable, randtable, compress, decompress, bzlib).
# Upstream's Makefile builds the objects; Debian's patched Makefile links
# bzip2 against the shared library, so the recipe links by hand.
SRCPKG=bzip2
BINARY=bzip2
corpus_build() {
    local cflags="$CORPUS_CFLAGS -Wall -D_FILE_OFFSET_BITS=64"
    make -j"$JOBS" CC="$CC" AR="$AR" RANLIB="$RANLIB" CFLAGS="$cflags" libbz2.a bzip2.o
    $CC $cflags -o bzip2 bzip2.o libbz2.a
}
