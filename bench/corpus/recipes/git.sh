# git: the `git` executable (git.c, every builtin, libgit.a, xdiff,
# reftable), upstream's Makefile without gettext, Tcl/Tk, Perl, Python,
# curl, expat and OpenSSL (SHA-1 is git's own sha1dc).  The remote helpers,
# git-daemon, docs and tests are not built.
SRCPKG=git
BINARY=git
corpus_build() {
    make -j"$JOBS" CC="$CC" CFLAGS="$CORPUS_CFLAGS" AR="$AR" \
        NO_GETTEXT=1 NO_TCLTK=1 NO_PERL=1 NO_PYTHON=1 NO_CURL=1 NO_EXPAT=1 \
        NO_OPENSSL=1 NO_INSTALL_HARDLINKS=1 \
        git
}
