# make-dfsg: GNU make 4.3, the `make` executable with gnulib (lib/).  The
# DFSG tarball ships no generated files, so autoreconf first (as debian/rules
# does, through dh --with autoreconf); configured without Guile and NLS.
SRCPKG=make-dfsg
BINARY=make
corpus_build() {
    autoreconf -fi
    ac_cv_lib_util_getloadavg=no ./configure CC="$CC_PLAIN" --without-guile --disable-nls
    make -C lib -j"$JOBS" CC="$CC"
    make -j"$JOBS" CC="$CC" make
}
