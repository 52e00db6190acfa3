# htop: the `htop` executable (ncurses and libnl are shared libraries, outside the bitcode).  Not in
# build.sh's default PROGRAMS: a program of none of the corpus's shapes (tables of function
# pointers per screen and per platform), built to check the front end and the backends on code
# they were not tuned on.
SRCPKG=htop
BINARY=htop
corpus_build() {
    [ -x configure ] || autoreconf -fi
    ./configure CC="$CC_PLAIN" --disable-unicode --disable-sensors --disable-capabilities
    make -j"$JOBS" CC="$CC" htop
}
