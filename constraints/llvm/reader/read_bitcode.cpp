// read_bitcode: one LLVM 19 bitcode file to the textual IR the extractor reads,
// or to its constraints.
//
// Usage: read_bitcode [--full | --extract MODELS [--progress]] FILE.bc   (on stdout; exit 1
// and one "error: ..." line on stderr when LLVM cannot read the file)
//
// Built on first use by constraints/llvm/inputs.py (g++, llvm-config-19 and
// the headers of Debian's llvm-19-dev); without them the extractor uses
// llvm-dis-19. It prints what llvm-dis-19 prints, less work and text the
// extractor does not need (the constraints, names and file:line locations are
// the same; tests/test_fast_reader.py):
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
// module, one line "; andersen-text: WHY" and then the text as above. With
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
#include <vector>
#include <unistd.h>

using namespace llvm;

// extract.cpp: write the constraints of ``m`` to ``out`` in the columnar form
// constraints/llvm/fast_extract.py loads, with the external-function models
// read from ``modelsPath`` (written by fast_extract.py from externals.py).
// Returns false, writing nothing, when the module uses something extract.cpp
// does not reproduce exactly; ``why`` then says what.
bool extractConstraints(Module &m, const char *modelsPath, raw_ostream &out, std::string &why,
                        raw_ostream *progress);

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

int main(int argc, char **argv) {
  bool full = false, progress = false;
  const char *path = nullptr, *models = nullptr;
  for (int k = 1; k < argc; ++k) {
    if (std::strcmp(argv[k], "--full") == 0)
      full = true;
    else if (std::strcmp(argv[k], "--progress") == 0)
      progress = true;
    else if (std::strcmp(argv[k], "--extract") == 0 && k + 1 < argc)
      models = argv[++k];
    else
      path = argv[k];
  }
  if (path == nullptr) {
    errs() << "usage: read_bitcode [--full | --extract MODELS [--progress]] FILE.bc\n";
    return 2;
  }
  if (!full) {
    const char *opts[] = {"read_bitcode", "-disable-auto-upgrade-debug-info"};
    cl::ParseCommandLineOptions(2, opts);
  }
  auto buffer = MemoryBuffer::getFile(path);
  if (!buffer) {
    errs() << "error: " << buffer.getError().message() << "\n";
    return 1;
  }
  LLVMContext ctx;
  Expected<std::unique_ptr<Module>> module = parseBitcodeFile((*buffer)->getMemBufferRef(), ctx);
  if (!module) {
    errs() << "error: " << toString(module.takeError()) << "\n";
    return 1;
  }
  Module &m = **module;
  if (!m.IsNewDbgInfoFormat)
    m.convertToNewDbgValues();
  if (models != nullptr) {
    std::string why;
    if (extractConstraints(m, models, outs(), why, progress ? &errs() : nullptr)) {
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
  _exit(0);  // the module's destructors cost a tenth of the run; the OS frees it all
}
