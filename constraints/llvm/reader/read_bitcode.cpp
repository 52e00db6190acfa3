// read_bitcode: the constraints of a program in LLVM 19 bitcode or IR text.
//
// Usage: read_bitcode --extract MODELS [--sites] [--progress] [--model-constants] FILE...
//
// FILE... is one .bc read as it is, or .ll/.bc files linked as llvm-link-19
// links them (load.cpp). The constraints go to stdout in the columnar form
// constraints/llvm/fast_extract.py loads (extract.cpp; it starts with
// "ANDX1"), with the external-function models read from MODELS (written by
// fast_extract.py from externals.py). --sites adds the memory-access sites of
// the alias facts. --progress also writes "progress DONE TOTAL" lines on
// stderr as it walks the functions (instructions of defined functions; about
// a hundred lines). --model-constants gives every read-only global of plain data
// (a string literal, a table of numbers) an object of its own instead of the
// one shared "<constant data>" object (extract.cpp, constantData()). Exit 1 and one "error: FILE: ..." line on stderr when LLVM
// cannot read, link or verify the input, or the module holds something the
// extractor does not know.
//
// One .bc is read without the debug-info verifier (UpgradeDebugInfo runs the
// whole module verifier; bitcode is written by LLVM from verified modules).
// The module is never freed: the OS frees it all at exit, faster.
//
// Built by the install (setup.py, constraints/llvm/build_reader.py: g++,
// llvm-config-19 and the headers of Debian's llvm-19-dev), else on first use
// by constraints/llvm/inputs.py.

#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/raw_ostream.h"

#include <cstring>
#include <fstream>
#include <memory>
#include <string>
#include <vector>
#include <unistd.h>

using namespace llvm;

// extract.cpp: write the constraints of ``m`` (with the access sites when
// ``sites``) to ``out``. Returns false, writing nothing, when the module holds
// something the extractor does not know; ``why`` then says what.
bool extractConstraints(Module &m, const char *modelsPath, raw_ostream &out, std::string &why,
                        raw_ostream *progress, bool sites, bool foldConstants);

// load.cpp: the program of ``files`` (one .bc read as it is when ``single``, else
// linked as llvm-link-19 does); nullptr and ``err`` when LLVM rejects it.
std::unique_ptr<Module> loadProgram(const std::vector<const char *> &files, LLVMContext &ctx, bool single,
                                    std::string &err);

// One .bc file is read as it is; anything else is linked (load.cpp).
static bool isSingleBitcode(const std::vector<const char *> &files) {
  if (files.size() != 1)
    return false;
  char magic[4] = {};
  std::ifstream in(files[0], std::ios::binary);
  if (!in.read(magic, 4))
    return false;
  const unsigned char *p = reinterpret_cast<const unsigned char *>(magic);
  return (p[0] == 'B' && p[1] == 'C' && p[2] == 0xc0 && p[3] == 0xde) ||
         (p[0] == 0xde && p[1] == 0xc0 && p[2] == 0x17 && p[3] == 0x0b);
}

int main(int argc, char **argv) {
  bool progress = false, sites = false, foldConstants = true;
  const char *models = nullptr;
  std::vector<const char *> files;
  for (int k = 1; k < argc; ++k) {
    if (std::strcmp(argv[k], "--progress") == 0)
      progress = true;
    else if (std::strcmp(argv[k], "--sites") == 0)
      sites = true;
    else if (std::strcmp(argv[k], "--model-constants") == 0)
      foldConstants = false;
    else if (std::strcmp(argv[k], "--extract") == 0 && k + 1 < argc)
      models = argv[++k];
    else
      files.push_back(argv[k]);
  }
  if (files.empty() || models == nullptr) {
    errs() << "usage: read_bitcode --extract MODELS [--sites] [--progress] [--model-constants] FILE...\n";
    return 2;
  }
  bool single = isSingleBitcode(files);
  if (single) {  // linked inputs get llvm-link's debug-info upgrade
    const char *opts[] = {"read_bitcode", "-disable-auto-upgrade-debug-info"};
    cl::ParseCommandLineOptions(2, opts);
  }
  LLVMContext ctx;
  std::string err;
  std::unique_ptr<Module> module = loadProgram(files, ctx, single, err);
  if (!module) {
    errs() << "error: " << (single ? std::string(files[0]) + ": " : std::string()) << err << "\n";
    return 1;
  }
  Module &m = *module.release();
  if (!m.IsNewDbgInfoFormat)
    m.convertToNewDbgValues();
  std::string why;
  if (!extractConstraints(m, models, outs(), why, progress ? &errs() : nullptr, sites, foldConstants)) {
    errs() << "error: " << files.back() << ": cannot extract the constraints: " << why << "\n";
    return 1;
  }
  outs().flush();
  if (outs().has_error()) {
    errs() << "error: cannot write the constraints\n";
    outs().clear_error();
    _exit(1);
  }
  _exit(0);  // the module's destructors cost a tenth of the run
}
