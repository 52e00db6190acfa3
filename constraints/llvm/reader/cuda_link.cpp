// cuda_link: the host and device modules of one CUDA program, as one module for analysis.
//
// Usage: cuda_link OUT.bc --host HOST.bc... --device DEVICE.bc...   (.bc or .ll; the modules
//        of each side are linked first; exit 1 and one "error: ..." line on stderr when
//        LLVM cannot read an input or the result does not verify)
//        cuda_link --triple FILE...   (each module's target triple, one line each)
//
// Built on first use by constraints/llvm/cuda.py (as read_bitcode is by inputs.py). The
// device module is linked into the host module so that a host pointer reaches the kernel
// parameters it is launched with. Every symbol of the device module keeps its name, and
// its functions keep their blocks and instructions, so the stable instruction ids
// (function, block, index) of the result are those of the device module's IR; what
// changes is on the host side:
//
// * a host symbol whose name the device module also uses is renamed NAME.host, unless
//   both are declarations (malloc, the alias assertions): __host__ __device__ functions
//   have one copy per side;
// * a host variable that shadows a device variable (__device__, __constant__: the same
//   name on both sides, or paired by __cudaRegisterVar) is replaced by the device
//   variable, so cudaMemcpyToSymbol(sym, ...) writes the device object;
// * calls of the CUDA runtime's inline wrappers (cudaMalloc<T>, cudaMemcpyToSymbol<T>,
//   cudaLaunchKernel<T>, ...; defined in cuda_runtime.h) are inlined, so each call site
//   of cudaMalloc is its own allocation site;
// * each launch, cudaLaunchKernel[_ptsz] / cudaLaunchCooperativeKernel[_ptsz]
//   (FUNC, grid, block, ARGS, ...) or cudaLaunchKernelExC(config, FUNC, ARGS), whose
//   FUNC is a host stub of a device kernel (__device_stub__K, or paired by
//   __cudaRegisterFunction), becomes a direct call of the kernel K: argument i is
//   what ARGS[i] points to (itself for a byval parameter). Where the stores into
//   ARGS are found (an array on the stack written at constant indices, as in the
//   stubs clang writes for <<<...>>>), the value stored at index i is used; otherwise
//   the launch loads ARGS[i]. The launch's result becomes cudaSuccess (0). A launch
//   whose FUNC is not a known stub is left as it is (an unmodelled call).

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/IRReader/IRReader.h"
#include "llvm/Linker/Linker.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Transforms/Utils/Cloning.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

using namespace llvm;

static std::unique_ptr<Module> load(LLVMContext &ctx, const char *path) {
  SMDiagnostic err;
  std::unique_ptr<Module> mod = parseIRFile(path, err, ctx);
  if (!mod) {
    errs() << "error: " << path << ":" << (err.getLineNo() > 0 ? Twine(err.getLineNo()) + ": " : Twine(" "))
           << err.getMessage() << "\n";
    return nullptr;
  }
  return mod;
}

// The modules of ``paths`` linked into one (null, with the error printed, when one fails).
static std::unique_ptr<Module> loadAll(LLVMContext &ctx, const std::vector<const char *> &paths) {
  std::unique_ptr<Module> first = load(ctx, paths[0]);
  for (size_t i = 1; first && i < paths.size(); ++i) {
    std::unique_ptr<Module> more = load(ctx, paths[i]);
    if (!more)
      return nullptr;
    if (Linker::linkModules(*first, std::move(more))) {
      errs() << "error: " << paths[i] << ": cannot link it into " << paths[0] << "\n";
      return nullptr;
    }
  }
  return first;
}

// Each file's target triple: read from the bitcode header or the IR text's first lines.
static int printTriples(int argc, char **argv) {
  for (int i = 2; i < argc; ++i) {
    auto buf = MemoryBuffer::getFile(argv[i]);
    if (!buf) {
      errs() << "error: " << argv[i] << ": cannot read: " << buf.getError().message() << "\n";
      return 1;
    }
    StringRef data = (*buf)->getBuffer();
    std::string triple;
    if (isBitcode(reinterpret_cast<const unsigned char *>(data.begin()),
                  reinterpret_cast<const unsigned char *>(data.end()))) {
      auto got = getBitcodeTargetTriple((*buf)->getMemBufferRef());
      if (!got) {
        errs() << "error: " << argv[i] << ": not LLVM 19 bitcode: " << toString(got.takeError()) << "\n";
        return 1;
      }
      triple = *got;
    } else {
      size_t at = data.find("\ntarget triple = \"");
      if (at != StringRef::npos) {
        StringRef rest = data.drop_front(at + 18);
        triple = rest.take_until([](char c) { return c == '"'; }).str();
      }
    }
    outs() << triple << "\n";
  }
  return 0;
}

// The device kernel a host stub launches, by clang's naming: "__device_stub__K" for an
// extern "C" kernel K, and "<L>__device_stub__<rest>" -> "<L-15><rest>" in a mangled name.
static std::string kernelOfStub(StringRef stub) {
  static const StringRef tag = "__device_stub__";
  size_t at = stub.find(tag);
  if (at == StringRef::npos)
    return "";
  if (at == 0)
    return stub.drop_front(tag.size()).str();
  size_t digits = at;
  while (digits > 0 && isDigit(stub[digits - 1]))
    --digits;
  unsigned len = 0;
  if (digits == at || stub.substr(digits, at - digits).getAsInteger(10, len) || len <= tag.size())
    return "";
  return (stub.substr(0, digits) + Twine(len - tag.size()) + stub.substr(at + tag.size())).str();
}

// The string a registration call names (a constant global array of i8).
static std::string constantString(Value *v) {
  auto *gv = dyn_cast<GlobalVariable>(v->stripPointerCasts());
  if (gv == nullptr || !gv->hasInitializer())
    return "";
  if (auto *data = dyn_cast<ConstantDataSequential>(gv->getInitializer()))
    if (data->isCString())
      return data->getAsCString().str();
  return "";
}

// Kernels of the device module: nvvm.annotations "kernel" entries or the ptx_kernel convention.
static StringSet<> deviceKernels(Module &dev) {
  StringSet<> out;
  for (Function &f : dev)
    if (f.getCallingConv() == CallingConv::PTX_Kernel && !f.isDeclaration())
      out.insert(f.getName());
  if (NamedMDNode *ann = dev.getNamedMetadata("nvvm.annotations")) {
    for (MDNode *node : ann->operands()) {
      if (node->getNumOperands() < 3)
        continue;
      auto *kind = dyn_cast<MDString>(node->getOperand(1));
      auto *fn = mdconst::dyn_extract_or_null<Function>(node->getOperand(0));
      if (kind != nullptr && fn != nullptr && kind->getString() == "kernel")
        out.insert(fn->getName());
    }
  }
  return out;
}

// A function of the CUDA runtime's headers that only forwards to the runtime
// (cudaMalloc<T>, cudaMemcpyToSymbol<T>, cudaLaunchKernel<T>, ...).
static bool isRuntimeWrapper(const Function &f) {
  if (f.isDeclaration() || !(f.hasLocalLinkage() || f.hasLinkOnceLinkage() || f.hasWeakLinkage()))
    return false;
  if (const DISubprogram *sp = f.getSubprogram()) {
    StringRef file = sp->getFilename();
    if (file.ends_with("cuda_runtime.h"))
      return true;
  }
  StringRef name = f.getName();  // without debug info: _ZL10cudaMallocIiE... (a cuda* template)
  if (!name.consume_front("_ZL") && !name.consume_front("_Z"))
    return false;
  size_t n = 0;
  while (n < name.size() && isDigit(name[n]))
    ++n;
  return n > 0 && name.drop_front(n).starts_with("cuda");
}

struct Launch {
  CallBase *call;
  Value *func;
  Value *args;
};

static bool asLaunch(CallBase *call, Launch &out) {
  Function *callee = call->getCalledFunction();
  if (callee == nullptr)
    return false;
  StringRef name = callee->getName();
  std::vector<Value *> ptrs;  // the pointer arguments in order
  for (Value *a : call->args())
    if (a->getType()->isPointerTy())
      ptrs.push_back(a);
  if (name == "cudaLaunchKernel" || name == "cudaLaunchKernel_ptsz" || name == "cudaLaunchCooperativeKernel" ||
      name == "cudaLaunchCooperativeKernel_ptsz") {
    if (ptrs.size() < 2)
      return false;
    out = {call, ptrs[0], ptrs[1]};  // (func, grid, block, args, shmem, stream): dim3 is no pointer
    return true;
  }
  if (name == "cudaLaunchKernelExC" || name == "cudaLaunchKernelExC_ptsz") {
    if (call->arg_size() < 3)
      return false;
    out = {call, call->getArgOperand(1), call->getArgOperand(2)};
    return true;
  }
  return false;
}

// The pointer stored at each constant index of the array ``args`` points to, when the
// array is a stack slot of the launch's function written only by plain stores of
// pointers at constant offsets (anything else: an empty result, and the launch loads).
static std::vector<Value *> storedArguments(Value *args, unsigned count, const DataLayout &dl,
                                            Instruction *at, DominatorTree &dt) {
  APInt base(dl.getIndexTypeSizeInBits(args->getType()), 0);
  Value *root = args->stripAndAccumulateConstantOffsets(dl, base, true);
  auto *slot = dyn_cast<AllocaInst>(root);
  if (slot == nullptr)
    return {};
  uint64_t width = dl.getPointerSize();
  std::vector<std::vector<Value *>> found(count);
  SmallVector<std::pair<Value *, int64_t>, 8> work{{slot, 0}};
  while (!work.empty()) {
    auto [ptr, off] = work.pop_back_val();
    for (User *u : ptr->users()) {
      if (auto *gep = dyn_cast<GetElementPtrInst>(u)) {
        APInt more(dl.getIndexTypeSizeInBits(gep->getType()), 0);
        if (!gep->accumulateConstantOffset(dl, more))
          return {};
        work.push_back({gep, off + more.getSExtValue()});
      } else if (auto *cast = dyn_cast<BitCastInst>(u)) {
        work.push_back({cast, off});
      } else if (auto *st = dyn_cast<StoreInst>(u)) {
        if (st->getPointerOperand() != ptr || !st->getValueOperand()->getType()->isPointerTy())
          return {};  // the array's address escapes, or a non-pointer is written into it
        int64_t rel = off - base.getSExtValue();
        if (rel < 0 || rel % width != 0 || uint64_t(rel) / width >= count)
          return {};
        found[rel / width].push_back(st->getValueOperand());
      } else if (isa<LoadInst>(u) || u == at) {
        continue;
      } else if (auto *intr = dyn_cast<IntrinsicInst>(u)) {
        if (!intr->isLifetimeStartOrEnd())
          return {};
      } else {
        return {};
      }
    }
  }
  std::vector<Value *> out;
  for (auto &vals : found) {
    if (vals.size() != 1)
      return {};
    auto *inst = dyn_cast<Instruction>(vals[0]);
    if (inst != nullptr && !dt.dominates(inst, at))
      return {};
    out.push_back(vals[0]);
  }
  return out;
}

// Replace ``launch`` by a direct call of ``kernel``.
static void rewriteLaunch(const Launch &launch, Function *kernel, const DataLayout &dl, DominatorTree &dt) {
  CallBase *call = launch.call;
  unsigned n = kernel->arg_size();
  std::vector<Value *> stored = storedArguments(launch.args, n, dl, call, dt);
  IRBuilder<> b(call);
  b.SetCurrentDebugLocation(call->getDebugLoc());
  std::vector<Value *> actuals;
  PointerType *ptr = PointerType::get(call->getContext(), 0);
  for (unsigned i = 0; i < n; ++i) {
    Argument *formal = kernel->getArg(i);
    Value *where = stored.empty()
        ? b.CreateLoad(ptr, b.CreateConstGEP1_64(ptr, launch.args, i, "launch.argp"), "launch.arg")
        : stored[i];
    if (formal->hasByValAttr()) {
      actuals.push_back(b.CreateAddrSpaceCast(where, formal->getType()));
    } else {
      actuals.push_back(b.CreateLoad(formal->getType(), where, "launch.val"));
    }
  }
  CallInst *direct = b.CreateCall(kernel->getFunctionType(), kernel, actuals);
  direct->setCallingConv(kernel->getCallingConv());
  if (!call->getType()->isVoidTy())
    call->replaceAllUsesWith(Constant::getNullValue(call->getType()));
  call->eraseFromParent();
}

int main(int argc, char **argv) {
  if (argc >= 2 && StringRef(argv[1]) == "--triple")
    return printTriples(argc, argv);
  std::vector<const char *> hostPaths, devPaths;
  std::vector<const char *> *side = nullptr;
  bool usage = argc < 6;
  for (int i = 2; i < argc; ++i) {
    StringRef a = argv[i];
    if (a == "--host")
      side = &hostPaths;
    else if (a == "--device")
      side = &devPaths;
    else if (side != nullptr)
      side->push_back(argv[i]);
    else
      usage = true;
  }
  if (usage || hostPaths.empty() || devPaths.empty()) {
    errs() << "usage: cuda_link OUT.bc --host HOST.bc... --device DEVICE.bc...\n"
              "       cuda_link --triple FILE...\n";
    return 2;
  }
  const char *outPath = argv[1];
  LLVMContext ctx;
  std::unique_ptr<Module> host = loadAll(ctx, hostPaths);
  if (!host)
    return 1;
  std::unique_ptr<Module> dev = loadAll(ctx, devPaths);
  if (!dev)
    return 1;
  // the device side takes the host's layout (as linking would, without its warning)
  dev->setTargetTriple(host->getTargetTriple());
  dev->setDataLayout(host->getDataLayout());

  // Registration calls (present when the host module embeds a GPU binary) name the
  // device symbol of each stub and shadow variable.
  std::map<std::string, std::string> stubKernel, shadowOf;  // host name -> device name
  for (Function &f : *host)
    for (BasicBlock &bb : f)
      for (Instruction &inst : bb)
        if (auto *call = dyn_cast<CallBase>(&inst))
          if (Function *callee = call->getCalledFunction()) {
            StringRef name = callee->getName();
            if (name == "__cudaRegisterFunction" && call->arg_size() > 3) {
              auto *stub = dyn_cast<Function>(call->getArgOperand(1)->stripPointerCasts());
              std::string dname = constantString(call->getArgOperand(3));
              if (stub != nullptr && !dname.empty())
                stubKernel[stub->getName().str()] = dname;
            } else if ((name == "__cudaRegisterVar" || name == "__cudaRegisterManagedVar") &&
                       call->arg_size() > 3) {
              auto *var = dyn_cast<GlobalVariable>(call->getArgOperand(1)->stripPointerCasts());
              std::string dname = constantString(call->getArgOperand(3));
              if (var != nullptr && !dname.empty())
                shadowOf[var->getName().str()] = dname;
            }
          }

  // Host symbols the device module also names: renamed, keeping device names intact.
  std::vector<std::pair<GlobalVariable *, std::string>> shadows;
  std::vector<GlobalValue *> hostValues;
  for (GlobalValue &gv : host->global_values())
    if (gv.hasName())
      hostValues.push_back(&gv);
  for (GlobalValue *gv : hostValues) {
    std::string name = gv->getName().str();
    auto *var = dyn_cast<GlobalVariable>(gv);
    auto paired = shadowOf.find(name);
    if (var != nullptr && paired != shadowOf.end()) {
      if (auto *dvar = dev->getGlobalVariable(paired->second, true); dvar != nullptr && !dvar->isDeclaration()) {
        shadows.push_back({var, paired->second});
        var->setName(name + ".host");
        continue;
      }
    }
    GlobalValue *other = dev->getNamedValue(name);
    if (other == nullptr)
      continue;
    if (gv->isDeclaration() && other->isDeclaration())
      continue;  // the same external function or variable on both sides
    if (var != nullptr && !var->isDeclaration() && isa<GlobalVariable>(other) && !other->isDeclaration())
      shadows.push_back({var, name});
    gv->setName(name + ".host");
  }

  StringSet<> kernels = deviceKernels(*dev);
  if (Linker::linkModules(*host, std::move(dev))) {
    errs() << "error: cannot link the device module " << devPaths[0] << " into the host module " << hostPaths[0]
           << "\n";
    return 1;
  }
  Module &m = *host;

  for (auto &[var, dname] : shadows) {
    GlobalVariable *dvar = m.getGlobalVariable(dname, true);
    if (dvar == nullptr)
      continue;
    var->replaceAllUsesWith(ConstantExpr::getPointerBitCastOrAddrSpaceCast(dvar, var->getType()));
    var->eraseFromParent();
  }

  // Inline the runtime's header wrappers until none is called (they may call each other).
  for (bool changed = true; changed;) {
    changed = false;
    std::vector<CallBase *> calls;
    for (Function &f : m)
      for (BasicBlock &bb : f)
        for (Instruction &inst : bb)
          if (auto *call = dyn_cast<CallBase>(&inst))
            if (Function *callee = call->getCalledFunction(); callee != nullptr && callee != &f &&
                isRuntimeWrapper(*callee))
              calls.push_back(call);
    for (CallBase *call : calls) {
      InlineFunctionInfo info;
      changed |= InlineFunction(*call, info).isSuccess();
    }
  }
  for (Function &f : make_early_inc_range(m))
    if (isRuntimeWrapper(f) && f.use_empty() && f.hasLocalLinkage())
      f.eraseFromParent();

  // Launches of known stubs become calls of their kernels.
  const DataLayout &dl = m.getDataLayout();
  for (Function &f : m) {
    std::vector<Launch> launches;
    for (BasicBlock &bb : f)
      for (Instruction &inst : bb)
        if (auto *call = dyn_cast<CallBase>(&inst)) {
          Launch l;
          if (asLaunch(call, l))
            launches.push_back(l);
        }
    if (launches.empty())
      continue;
    DominatorTree dt(f);
    for (Launch &l : launches) {
      auto *stub = dyn_cast<Function>(l.func->stripPointerCasts());
      if (stub == nullptr)
        continue;
      std::string stubName = stub->getName().str();
      auto reg = stubKernel.find(stubName);
      std::string kname = reg != stubKernel.end() ? reg->second : kernelOfStub(stubName);
      Function *kernel = kname.empty() || !kernels.contains(kname) ? nullptr : m.getFunction(kname);
      if (kernel != nullptr)
        rewriteLaunch(l, kernel, dl, dt);
    }
  }

  std::string problems;
  raw_string_ostream os(problems);
  if (verifyModule(m, &os)) {
    os.flush();
    errs() << "error: the linked module does not verify: " << StringRef(problems).split('\n').first << "\n";
    return 1;
  }
  std::error_code ec;
  raw_fd_ostream out(outPath, ec, sys::fs::OF_None);
  if (ec) {
    errs() << "error: " << outPath << ": cannot write: " << ec.message() << "\n";
    return 1;
  }
  WriteBitcodeToFile(m, out);
  return 0;
}
