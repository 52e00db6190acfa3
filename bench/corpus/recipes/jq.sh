# jq: the `jq` command (its own lexer, parser and bytecode interpreter; oniguruma is a shared
# library, outside the bitcode).  Not in build.sh's default PROGRAMS: a program of none of the
# corpus's shapes, built to check the front end and the backends on code they were not tuned on.
SRCPKG=jq
BINARY=jq
corpus_build() {
    autoreconf -fi
    ./configure CC="$CC_PLAIN" --disable-docs --disable-maintainer-mode --disable-valgrind --with-oniguruma=yes \
        --disable-shared --enable-static   # jq linked with libjq.a, not a libtool wrapper
    make CC="$CC" src/builtin.inc src/version.h   # BUILT_SOURCES, which only `make all` makes
    make -j"$JOBS" CC="$CC" jq
}
