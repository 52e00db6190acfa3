// load: the program read_bitcode analyses, from one or more .bc/.ll files.
//
// One .bc file is read as it is (LLVM's bitcode reader, no verifier: bitcode
// is written by LLVM from verified modules). Anything else (one .ll, several
// files of either kind) is linked as llvm-link-19 links it: each file parsed
// (bitcode or IR text), its metadata loaded and its debug info upgraded, then
// moved into an empty module "llvm-link" by llvm::Linker, with debug types
// uniqued by ODR name across files; the linked module is verified. The result
// is the module llvm-link-19 would print.

#include "llvm/ADT/StringRef.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/IR/AutoUpgrade.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/DiagnosticPrinter.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/IRReader/IRReader.h"
#include "llvm/Linker/Linker.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <memory>
#include <string>
#include <vector>

using namespace llvm;

namespace {

// The first line of a message (LLVM's are often several: source line, caret).
std::string firstLine(StringRef text) {
  text = text.trim();
  return text.substr(0, text.find('\n')).rtrim().str();
}

// What the bitcode reader said, and what it may mean.
std::string unreadableBitcode(const std::string &message) {
  return "cannot read LLVM bitcode (" + message + "); truncated, corrupt, or from an LLVM newer than 19";
}

// Keeps the first error the linker reports (warnings, e.g. of differing target
// triples, are not errors: llvm-link prints them and goes on).
struct FirstError : DiagnosticHandler {
  std::string *message;
  explicit FirstError(std::string *m) : message(m) {}
  bool handleDiagnostics(const DiagnosticInfo &di) override {
    if (di.getSeverity() == DS_Error && message->empty()) {
      std::string text;
      raw_string_ostream os(text);
      DiagnosticPrinterRawOStream printer(os);
      di.print(printer);
      *message = firstLine(os.str());
    }
    return true;
  }
};

std::unique_ptr<Module> readOne(const char *path, LLVMContext &ctx, std::string &err) {
  auto buffer = MemoryBuffer::getFileOrSTDIN(path, /*IsText=*/true);
  if (!buffer) {
    err = std::string(path) + ": " + buffer.getError().message();
    return nullptr;
  }
  bool bitcode = isBitcode(reinterpret_cast<const unsigned char *>((*buffer)->getBufferStart()),
                           reinterpret_cast<const unsigned char *>((*buffer)->getBufferEnd()));
  SMDiagnostic diag;
  std::unique_ptr<Module> m = getLazyIRModule(std::move(*buffer), diag, ctx);
  if (!m) {
    std::string text;
    raw_string_ostream os(text);
    if (diag.getLineNo() > 0)
      os << path << ":" << diag.getLineNo() << ": ";
    else
      os << path << ": ";
    os << (bitcode ? unreadableBitcode(firstLine(diag.getMessage())) : diag.getMessage().str());
    err = firstLine(os.str());
    return nullptr;
  }
  if (Error e = m->materializeMetadata()) {
    err = std::string(path) + ": " + unreadableBitcode(firstLine(toString(std::move(e))));
    return nullptr;
  }
  UpgradeDebugInfo(*m);
  return m;
}

}  // namespace

// Declared in read_bitcode.cpp, which calls it. ``single`` says the input is
// one .bc file, read as it is (else: linked, and verified). Every message in
// ``err`` but those of ``single`` starts with the file it is about.
std::unique_ptr<Module> loadProgram(const std::vector<const char *> &files, LLVMContext &ctx, bool single,
                                    std::string &err) {
  if (single) {
    auto buffer = MemoryBuffer::getFile(files[0]);
    if (!buffer) {
      err = buffer.getError().message();
      return nullptr;
    }
    Expected<std::unique_ptr<Module>> m = parseBitcodeFile((*buffer)->getMemBufferRef(), ctx);
    if (!m) {
      err = unreadableBitcode(firstLine(toString(m.takeError())));
      return nullptr;
    }
    return std::move(*m);
  }
  std::string linkError;
  ctx.setDiagnosticHandler(std::make_unique<FirstError>(&linkError), true);
  ctx.enableDebugTypeODRUniquing();
  auto composite = std::make_unique<Module>("llvm-link", ctx);
  Linker linker(*composite);
  for (const char *path : files) {
    std::unique_ptr<Module> m = readOne(path, ctx, err);
    if (!m)
      return nullptr;
    if (linker.linkInModule(std::move(m))) {
      err = std::string(path) + ": cannot link: " + (linkError.empty() ? "link error" : linkError);
      return nullptr;
    }
  }
  std::string broken;
  raw_string_ostream os(broken);
  if (verifyModule(*composite, &os)) {
    err = std::string(files.back()) + ": invalid LLVM module: " + firstLine(os.str());
    return nullptr;
  }
  return composite;
}
