# gzip: the `gzip` command with gnulib (lib/libver.a).  autoreconf first, as
# debian/rules does (Debian's patches touch configure.ac); the assembler
# match routine is disabled (DEFS=NO_ASM, as Debian does), so everything is C.
# Only lib/ and gzip are built: no docs, no tests, no gzexe/zcat scripts.
SRCPKG=gzip
BINARY=gzip
corpus_build() {
    autoreconf -fi
    ./configure CC="$CC_PLAIN" --disable-silent-rules --disable-nls DEFS=NO_ASM
    make -C lib -j"$JOBS" CC="$CC"
    make version.c version.h
    make -j"$JOBS" CC="$CC" gzip
}
