# ninja-build: the `ninja` executable, C++ (the STL, virtual calls, no exceptions in its own code),
# built by its configure.py --bootstrap with wllvm++.  Not in build.sh's default PROGRAMS; a C++
# program the front end was not written against.
SRCPKG=ninja-build
BINARY=ninja
corpus_build() {
    CXX="$CXX" CXXFLAGS="$CXXFLAGS" python3 configure.py --bootstrap
}
