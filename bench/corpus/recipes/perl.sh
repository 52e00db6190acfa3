# perl: the `perl` interpreter with a static libperl (Debian's perl-base
# build is static too) and DynaLoader, configured like Debian (threads,
# large files, 64-bit integers) but for a throw-away prefix.  Only `make perl`
# is run: miniperl, the generated headers and the perl binary; no dynamic
# extensions, docs or tests.  Configure itself runs with wllvm as cc, because
# perl builds DynaLoader with the compiler recorded in config.sh.
SRCPKG=perl
BINARY=perl
corpus_build() {
    sh Configure -des -Dcc="$CC" -Doptimize="$CORPUS_CFLAGS" \
        -Dprefix=/opt/perl-corpus -Dusethreads -Duselargefiles -Duse64bitint \
        -Uuseshrplib -Uversiononly -Dman1dir=none -Dman3dir=none -Ui_xlocale
    make -j"$JOBS" perl
}
