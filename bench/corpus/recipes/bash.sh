# bash: the `bash` executable with its bundled readline, history, glob,
# tilde and builtins libraries; Debian's configure flags minus the
# installed readline, without NLS.  (bash-malloc is off, as on Debian.)
SRCPKG=bash
BINARY=bash
corpus_build() {
    ./configure CC="$CC_PLAIN" --enable-largefile --without-bash-malloc --disable-nls
    make -j"$JOBS" CC="$CC" bash
}
