# cppcheck: the `cppcheck` static analyser, C++ (lib/ with the STL throughout, tinyxml2,
# simplecpp), built by its Makefile without rules (PCRE) and without the GUI.  Not in build.sh's
# default PROGRAMS; a large C++ program the front end was not written against.
SRCPKG=cppcheck
BINARY=cppcheck
corpus_build() {
    make -j"$JOBS" CXX="$CXX" CXXFLAGS="$CXXFLAGS" MATCHCOMPILER= HAVE_RULES= cppcheck
}
