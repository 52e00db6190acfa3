// read_bitcode: a program in LLVM 19 bitcode or IR text to the textual IR the
// extractor reads, or to its constraints.
//
// Usage: read_bitcode [--full | --extract MODELS [--sites] [--progress]] FILE...   (on stdout;
// exit 1 and one "error: FILE: ..." line on stderr when LLVM cannot read, link or verify
// the input)
//
// FILE... is one .bc read as it is, or .ll/.bc files linked as llvm-link-19 links
// them (load.cpp).
//
// Built by the install (setup.py, constraints/llvm/build_reader.py: g++,
// llvm-config-19 and the headers of Debian's llvm-19-dev), else on first use by
// constraints/llvm/inputs.py; without them the extractor uses llvm-dis-19.
// It prints what llvm-dis-19 prints, less work and text the extractor does not
// need (the constraints, names and file:line locations are the same;
// tests/test_fast_reader.py):
//
// * debug-info verification on load (UpgradeDebugInfo runs the whole module
//   verifier; bitcode is written by LLVM from verified modules);
// * debug records other than #dbg_declare (#dbg_value, #dbg_assign, #dbg_label);
// * the column of each instruction's and #dbg_declare's DILocation: the
//   extractor keeps file:line, and without columns many instructions share one
//   DILocation, so far fewer metadata lines are printed;
// * debug types: the type of every variable and function, the compile unit's
//   enums, retained types, global list and imports (half the metadata of git);
//   what the extractor reads of a variable or function (line, file, scope) stays;
// * freeing the module at exit.
//
// --full prints the module as llvm-dis-19 does (for comparisons).
//
// --extract MODELS writes the module's constraints instead (extract.cpp; the
// columnar form starts with "ANDX1"), or, when extract.cpp does not cover the
// module, one line "; andersen-text: WHY" and then the text as above. --sites
// adds the memory-access sites of the alias facts (sites.cpp). With
// --progress it also writes "progress DONE TOTAL" lines on stderr as it walks
// the functions (instructions of defined functions; about a hundred lines).

#include "llvm/ADT/DenseMap.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/DebugProgramInstruction.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <cstring>
#include <memory>
#include <string>
#include <vector>
#include <unistd.h>

using namespace llvm;

// extract.cpp: write the constraints of ``m`` to ``out`` in the columnar form
// constraints/llvm/fast_extract.py loads, with the external-function models
// read from ``modelsPath`` (written by fast_extract.py from externals.py).
// Returns false, writing nothing, when the module uses something extract.cpp
// does not reproduce exactly; ``why`` then says what.
// With ``sites``, the access sites follow the constraints (sites.cpp).
bool extractConstraints(Module &m, const char *modelsPath, raw_ostream &out, std::string &why,
                        raw_ostream *progress, bool sites);

// load.cpp: the program of ``files`` (one .bc read as it is when ``single``, else
// linked as llvm-link-19 does); nullptr and ``err`` when LLVM rejects it.
std::unique_ptr<Module> loadProgram(const std::vector<const char *> &files, LLVMContext &ctx, bool single,
                                    std::string &err);

// The location ``loc`` without its column (the same node when it has none).
static DILocation *lineOnly(LLVMContext &ctx, const DILocation *loc) {
  if (loc->getColumn() == 0)
    return const_cast<DILocation *>(loc);
  return DILocation::get(ctx, loc->getLine(), 0, loc->getScope(), loc->getInlinedAt(), loc->isImplicitCode());
}

static void reduceDebugInfo(Module &m, std::vector<DbgVariableRecord *> &declares) {
  LLVMContext &ctx = m.getContext();
  DenseMap<const DILocation *, DILocation *> lines;  // most locations are shared by a few instructions
  auto lineOf = [&](const DILocation *loc) {
    DILocation *&hit = lines[loc];
    if (hit == nullptr)
      hit = lineOnly(ctx, loc);
    return hit;
  };
  for (Function &f : m) {
    for (BasicBlock &bb : f) {
      for (Instruction &inst : bb) {
        for (DbgRecord &rec : make_early_inc_range(inst.getDbgRecordRange())) {
          auto *var = dyn_cast<DbgVariableRecord>(&rec);
          if (var == nullptr || !var->isDbgDeclare()) {
            rec.eraseFromParent();
          } else {
            if (const DILocation *loc = rec.getDebugLoc().get())
              rec.setDebugLoc(DebugLoc(lineOf(loc)));
            declares.push_back(var);
          }
        }
        if (const DILocation *loc = inst.getDebugLoc().get())
          inst.setDebugLoc(DebugLoc(lineOf(loc)));
      }
    }
  }
}

// Variables and functions without their types (printed after the line, file
// and scope the extractor reads), so that type nodes are not printed. Uniqued
// nodes are replaced by new ones; distinct ones are edited in place.
static DILocalVariable *untypedLocal(LLVMContext &ctx, DILocalVariable *v) {
  return DILocalVariable::get(ctx, v->getScope(), v->getName(), v->getFile(), v->getLine(), nullptr, v->getArg(),
                              v->getFlags(), v->getAlignInBits(), nullptr);
}

static DIGlobalVariable *untypedGlobal(LLVMContext &ctx, DIGlobalVariable *v) {
  if (v->isDistinct())
    return DIGlobalVariable::getDistinct(ctx, v->getScope(), v->getName(), v->getLinkageName(), v->getFile(),
                                         v->getLine(), nullptr, v->isLocalToUnit(), v->isDefinition(), nullptr,
                                         nullptr, v->getAlignInBits(), nullptr);
  return DIGlobalVariable::get(ctx, v->getScope(), v->getName(), v->getLinkageName(), v->getFile(), v->getLine(),
                               nullptr, v->isLocalToUnit(), v->isDefinition(), nullptr, nullptr,
                               v->getAlignInBits(), nullptr);
}

static void dropDebugTypes(Module &m, const std::vector<DbgVariableRecord *> &declares) {
  LLVMContext &ctx = m.getContext();
  DenseMap<DILocalVariable *, DILocalVariable *> locals;
  for (DbgVariableRecord *rec : declares) {
    DILocalVariable *v = rec->getVariable();
    if (v == nullptr)
      continue;
    DILocalVariable *&hit = locals[v];
    if (hit == nullptr)
      hit = untypedLocal(ctx, v);
    rec->setVariable(hit);
  }
  DenseMap<DIGlobalVariableExpression *, DIGlobalVariableExpression *> globals;
  SmallVector<DIGlobalVariableExpression *, 2> exprs;
  for (GlobalVariable &g : m.globals()) {
    exprs.clear();
    g.getDebugInfo(exprs);
    if (exprs.empty())
      continue;
    g.eraseMetadata(LLVMContext::MD_dbg);
    for (DIGlobalVariableExpression *e : exprs) {
      DIGlobalVariableExpression *&hit = globals[e];
      if (hit == nullptr)
        hit = e->getVariable() ? DIGlobalVariableExpression::get(ctx, untypedGlobal(ctx, e->getVariable()),
                                                                 e->getExpression())
                               : e;
      g.addDebugInfo(hit);
    }
  }
  for (DICompileUnit *unit : m.debug_compile_units()) {
    unit->replaceEnumTypes(nullptr);
    unit->replaceRetainedTypes(nullptr);
    unit->replaceGlobalVariables(nullptr);
    unit->replaceImportedEntities(nullptr);
  }
  for (Function &f : m) {
    DISubprogram *sp = f.getSubprogram();
    if (sp != nullptr && sp->isDistinct()) {
      // type, declaration, retainedNodes, containingType, templateParams, thrownTypes
      // (trailing null operands are not stored)
      for (unsigned op : {4u, 6u, 7u, 8u, 9u, 10u})
        if (op < sp->getNumOperands())
          sp->replaceOperandWith(op, nullptr);
    }
  }
}

// One .bc file is read as it is; anything else is linked (load.cpp).
static bool isSingleBitcode(const std::vector<const char *> &files) {
  if (files.size() != 1)
    return false;
  auto buffer = MemoryBuffer::getFile(files[0]);
  if (!buffer || (*buffer)->getBufferSize() < 4)
    return false;
  const unsigned char *p = reinterpret_cast<const unsigned char *>((*buffer)->getBufferStart());
  return (p[0] == 'B' && p[1] == 'C' && p[2] == 0xc0 && p[3] == 0xde) ||
         (p[0] == 0xde && p[1] == 0xc0 && p[2] == 0x17 && p[3] == 0x0b);
}

int main(int argc, char **argv) {
  bool full = false, progress = false, sites = false;
  const char *models = nullptr;
  std::vector<const char *> files;
  for (int k = 1; k < argc; ++k) {
    if (std::strcmp(argv[k], "--full") == 0)
      full = true;
    else if (std::strcmp(argv[k], "--progress") == 0)
      progress = true;
    else if (std::strcmp(argv[k], "--sites") == 0)
      sites = true;
    else if (std::strcmp(argv[k], "--extract") == 0 && k + 1 < argc)
      models = argv[++k];
    else
      files.push_back(argv[k]);
  }
  if (files.empty()) {
    errs() << "usage: read_bitcode [--full | --extract MODELS [--sites] [--progress]] FILE...\n";
    return 2;
  }
  bool single = isSingleBitcode(files);
  if (!full && single) {  // linked inputs get llvm-link's debug-info upgrade
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
  Module &m = *module;
  if (!m.IsNewDbgInfoFormat)
    m.convertToNewDbgValues();
  if (models != nullptr) {
    std::string why;
    if (extractConstraints(m, models, outs(), why, progress ? &errs() : nullptr, sites)) {
      outs().flush();
      _exit(outs().has_error() ? 1 : 0);
    }
    outs() << "; andersen-text: " << why << "\n";
  }
  if (!full) {
    std::vector<DbgVariableRecord *> declares;
    reduceDebugInfo(m, declares);
    dropDebugTypes(m, declares);
  }
  m.print(outs(), nullptr);
  outs().flush();
  if (outs().has_error()) {
    errs() << "error: cannot write the module text\n";
    outs().clear_error();
    _exit(1);
  }
  module.release();
  _exit(0);  // the module's destructors cost a tenth of the run; the OS frees it all
}
