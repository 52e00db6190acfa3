// extract: the constraints of a module, walked in LLVM's own objects.
//
// The front end's one implementation of the rules (DESIGN.md, "The constraint
// model"); constraints/llvm/fast_extract.py loads what it writes:
//
// * every global, alloca and allocation call site is a memory object with one
//   field slot per scalar of its type (Types: nested structs flattened, arrays
//   and vectors collapsed to one element); heap objects, whose type is
//   unknown, get as many slots as the largest struct of the program, or, when
//   the allocation size is a constant, as many as any of the program's types
//   places in that many bytes (window(): 16 bytes hold at most two pointers,
//   not 16 slots); a field past them lies outside the block. Fewer where the
//   type is fixed or the use shows it: a FILE, DIR or dlopen handle takes its
//   C record's slots (recordSlots), and an allocation whose pointers never
//   leave its function takes the slots its uses reach, or collapses to one
//   field-insensitive node where a pointer into it moves by an offset the
//   rules cannot place (useLayout);
// * a function @f is an object whose slots are @f itself, its return slot
//   @f#ret, one slot per parameter @f#argK and, when variadic, @f#va (no
//   memory: only a call gep enters @f, so neither a gep nor the smear of a
//   pointer that may hold @f reaches its slots); a direct
//   call copies actuals into the parameter slots (copied on to the formals)
//   and the return slot back; an indirect call through fp is a call gep to the
//   slot (x = fp +c k, ConstraintSet.call_geps: the one way into a function,
//   which a plain gep does not enter) then a store (arguments) or load
//   (result), resolved while solving;
// * getelementptr adds the flattened field offset of its struct indices;
//   array indices (and the first, pointer-arithmetic index) keep the slot; a
//   byte (i8) gep with a variable or non-zero offset may land on any later
//   slot of the object and is modelled by Builder::smear, the sound
//   over-approximation (a constant one into an object of known type lands on
//   its slot);
// * aggregate SSA values ({ptr, i64}, vectors) are one node holding all their
//   pointers; extractvalue/insertvalue copy;
// * pointers of every address space are pointers (addrspacecast copies);
//   aliases are their aliasee, an ifunc the functions its resolver returns;
// * integers carry provenance (ptrtoint/inttoptr): an integer is traced
//   (intSources) through arithmetic, phi, select, casts and aggregates to the
//   pointers it was made from; a pointer-sized (i64) integer also flows like a
//   pointer through memory (loads, stores), calls (arguments, varargs, results)
//   and returns, so that an inttoptr points to what reached its integer (any
//   slot at or after it where arithmetic took part). Where the integer may
//   also be one of no pointer origin (a constant, input, a hash: a load, an
//   argument, a call result, anything not traced) the inttoptr points to the
//   int-to-pointer object too (ConstraintSet.int_to_pointer). The difference
//   of two pointers converted in the subtraction itself (C's p - q) is a
//   distance: it carries neither;
// * exceptions: __cxa_throw/resume feed one exception node that every
//   landingpad reads; va_start points the va_list at the function's @f#va
//   slot, which receives every variadic actual;
// * external functions follow the models of constraints/llvm/externals.py
//   (handed over as a file, Models); one without a model is counted, its
//   pointer result and every slot of the memory it is given may receive an
//   object of its own or anywhere into what it was given, and the functions it
//   is given, or that memory reachable from what it was given holds (a table
//   of callbacks, a virtual table), may be called back with anything reachable
//   from it (callReached; the model effect "call_reached" does the same).
//
// Nodes are numbered in the order the rules make them; names are LLVM's as it
// prints them (printedName(): the AsmWriter's quoting; unnamed values,
// globals and struct types numbered as its SlotTracker and TypePrinting number
// them), with file:line from the debug info. An instruction the rules do not
// know is counted in the statistics, never dropped silently; a module holding
// something they cannot read makes extractConstraints() return false with the
// reason (unsupported()).
//
// The rules were first written in Python over the IR text and this file was
// kept equal to them node for node: a few choices only that made (which of two
// readings of an instruction comes first, and so the order of its nodes;
// tokens of the printed form, loadStoreToken()) are still followed, so that
// node ids stay what they were.

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/APInt.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/DebugProgramInstruction.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/ModuleSlotTracker.h"
#include "llvm/IR/Operator.h"
#include "llvm/IR/TypeFinder.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

using namespace llvm;

namespace {

struct Unsupported {
  std::string why;
};

[[noreturn]] void unsupported(std::string why) { throw Unsupported{std::move(why)}; }

enum Kind : int8_t { VALUE = 0, OBJECT = 1, FIELD = 2, FUNCTION = 3 };
enum Col { ADDR_D, ADDR_S, COPY_D, COPY_S, LOAD_D, LOAD_S, STORE_D, STORE_S, GEP_D, GEP_S, GEP_O, CALL_D, CALL_S, CALL_O,
           NCOLS };

// ------------------------------------------------------------------ models
// One effect of an external's model (externals.py): its items as written there.
struct Item {
  bool isInt = false;
  long k = 0;
  std::string s;
  std::vector<Item> tuple;  // the argument list of a "call" effect
  bool isTuple = false;
};
using Effect = std::vector<Item>;

struct Models {
  std::unordered_map<std::string, std::vector<Effect>> models;
  std::unordered_map<std::string, std::vector<int>> allocSizeArgs;
  std::unordered_map<std::string, std::optional<std::string>> staticRecords;
  std::unordered_map<std::string, int> recordSlots;
  std::vector<std::string> aliasChecks;
  std::unordered_map<std::string, std::string> globalText;  // a library global -> its text object's key

  static Item parseItem(const std::string &t) {
    Item it;
    if (!t.empty() && t[0] == 'i') {
      it.isInt = true;
      it.k = std::stol(t.substr(1));
    } else if (!t.empty() && t[0] == 't') {
      it.isTuple = true;
      if (t.size() > 1)
        for (auto part : split(StringRef(t).drop_front(), '|'))
          it.tuple.push_back(parseItem(part.str()));
    } else if (!t.empty()) {
      it.s = t.substr(1);
    }
    return it;
  }

  // The file written by constraints/llvm/fast_extract.py (models_file).
  bool load(const char *path) {
    std::ifstream in(path);
    if (!in)
      return false;
    std::string line;
    while (std::getline(in, line)) {
      SmallVector<StringRef, 4> f;
      StringRef(line).split(f, '\t');
      if (f.size() < 2)
        continue;
      std::string name = f[1].str();
      if (f[0] == "M") {
        auto &effects = models[name];
        if (f.size() > 2 && !f[2].empty())
          for (StringRef e : split(f[2], ';')) {
            Effect eff;
            for (StringRef t : split(e, ','))
              eff.push_back(parseItem(t.str()));
            effects.push_back(std::move(eff));
          }
      } else if (f[0] == "A") {
        auto &ks = allocSizeArgs[name];
        for (StringRef t : split(f[2], ','))
          ks.push_back(std::stoi(t.str()));
      } else if (f[0] == "R") {
        if (f.size() > 2 && !f[2].empty())
          staticRecords[name] = f[2].str();
        else
          staticRecords[name] = std::nullopt;
      } else if (f[0] == "S") {
        recordSlots[name] = std::stoi(f[2].str());
      } else if (f[0] == "T") {
        globalText[name] = f[2].str();
      } else if (f[0] == "C") {
        aliasChecks.push_back(name);
      }
    }
    return true;
  }

  // externals.intrinsic_base
  static std::string intrinsicBase(const std::string &name) {
    SmallVector<StringRef, 8> parts;
    StringRef(name).split(parts, '.');
    auto strip = [](StringRef p) {
      if (!p.empty() && StringRef("pifvs").contains(p[0]) && p.size() > 1 && isDigit(p[1]))
        return true;
      return p == "f32" || p == "f64" || p == "f80" || p == "f128" || p == "isVoid" || p.starts_with("nxv");
    };
    while (parts.size() > 2 && strip(parts.back()))
      parts.pop_back();
    return join(parts, ".");
  }

  // externals.model_for: nullptr when there is no model
  const std::vector<Effect> *modelFor(const std::string &name) const {
    auto hit = models.find(name);
    if (hit != models.end())
      return &hit->second;
    if (!StringRef(name).starts_with("llvm."))
      return nullptr;
    std::string head = intrinsicBase(name);
    hit = models.find(head);
    while (hit == models.end() && head.find('.', 5) != std::string::npos) {
      head = head.substr(0, head.rfind('.'));
      hit = models.find(head);
    }
    return hit == models.end() ? nullptr : &hit->second;
  }
};

// --------------------------------------------------------------- builder
// Nodes and constraint columns in creation order. An object is consecutive ids: slot 0 then
// fields 1..k-1, field j of size k - j, so that gep offsets stay relative.
struct Builder {
  std::vector<int8_t> kind;
  std::vector<int32_t> size;
  std::vector<int32_t> loc;  // index into the location table (0: "")
  std::string names;         // '\0' after each name
  std::vector<int32_t> col[NCOLS];
  std::vector<int32_t> fi;   // the field-insensitive objects (ConstraintSet.field_insensitive), ascending

  int n() const { return (int)kind.size(); }

  // A field-insensitive object: one node, listed in fi.
  int insensitiveObj(const std::string &name, int l) {
    int o = obj(name, 1, OBJECT, l);
    fi.push_back(o);
    return o;
  }

  int node(const std::string &name, int k = VALUE, int l = 0) {
    names += name;
    return named(k, l);
  }

  // A node whose name the caller has just appended to ``names`` (saves a copy
  // on the most common nodes, the values of a function).
  int named(int k = VALUE, int l = 0) {
    names += '\0';
    kind.push_back((int8_t)k);
    size.push_back(0);
    loc.push_back(l);
    return n() - 1;
  }

  // builder.Builder.obj (reach <= 0: every slot)
  int obj(const std::string &name, int slots, int k, int l, const std::vector<std::string> *fieldNames = nullptr,
          int reach = 0) {
    int total = std::max(slots, 1);
    int r = reach <= 0 ? total : std::max(1, std::min(reach, total));
    int base = n();
    names += name;
    names += '\0';
    kind.push_back((int8_t)k);
    size.push_back(total);
    loc.push_back(l);
    for (int j = 1; j < total; ++j) {
      if (fieldNames) {
        names += (*fieldNames)[j];
      } else {
        names += name;
        names += '#';
        names += std::to_string(j);
      }
      names += '\0';
      kind.push_back(FIELD);
      size.push_back(j < r ? r - j : total - j);
      loc.push_back(l);
    }
    return base;
  }

  void addr(int x, int y) { col[ADDR_D].push_back(x), col[ADDR_S].push_back(y); }
  void copy(int x, int y) {
    if (x != y)
      col[COPY_D].push_back(x), col[COPY_S].push_back(y);
  }
  void load(int x, int y) { col[LOAD_D].push_back(x), col[LOAD_S].push_back(y); }
  void store(int x, int y) { col[STORE_D].push_back(x), col[STORE_S].push_back(y); }
  void gep(int x, int y, long o) {
    col[GEP_D].push_back(x), col[GEP_S].push_back(y), col[GEP_O].push_back((int32_t)o);
  }
  // x = y +c o: slot o of every function y points to (a call's return or parameter cell); the
  // one way into a function object, which a plain gep does not enter (ConstraintSet.call_geps)
  void callGep(int x, int y, long o) {
    col[CALL_D].push_back(x), col[CALL_S].push_back(y), col[CALL_O].push_back((int32_t)o);
  }
  int offset(int y, long o, const std::string &name) {
    if (o == 0)
      return y;
    int t = node(name);
    gep(t, y, o);
    return t;
  }
  // A node pointing to every slot at or after every slot y points to (t = y; u = t + 1;
  // t = u): the sound model of an unknown offset.
  int smear(int y, const std::string &name) {
    int t = node(name);
    int u = node(name + "+1");
    copy(t, y);
    gep(u, t, 1);
    copy(t, u);
    return t;
  }
};

// --------------------------------------------------------------- names
// How the AsmWriter prints a name after its sigil (PrintLLVMName).
bool needsQuotes(StringRef name) {
  if (name.empty() || isDigit(name[0]))
    return true;
  for (unsigned char c : name)
    if (!isAlnum(c) && c != '-' && c != '.' && c != '_')
      return true;
  return false;
}

std::string printedName(StringRef name) {
  if (!needsQuotes(name))
    return name.str();
  std::string out = "\"";
  raw_string_ostream os(out);
  printEscapedString(name, os);
  os.flush();
  return out + "\"";
}

// ------------------------------------------------------------------ types
// Field slots and byte layout of llvm::Type (memoized: types are uniqued by LLVM).
struct Types {
  DenseMap<Type *, int> slotsMemo;
  std::unordered_map<Type *, std::vector<int>> prefixMemo;  // node-based: references stay valid
  DenseMap<Type *, bool> hasPtrMemo, hasWordMemo;
  DenseMap<Type *, std::pair<long, long>> layoutMemo;
  std::unordered_map<Type *, std::string> textMemo;  // node-based: references stay valid

  static bool isStruct(Type *t) {  // a struct with a body ("S" once resolved)
    auto *s = dyn_cast<StructType>(t);
    return s != nullptr && !s->isOpaque();
  }
  static bool isSeq(Type *t) { return isa<ArrayType>(t) || isa<VectorType>(t); }
  static Type *elem(Type *t) {
    if (auto *a = dyn_cast<ArrayType>(t))
      return a->getElementType();
    return cast<VectorType>(t)->getElementType();
  }
  static long count(Type *t) {
    if (auto *a = dyn_cast<ArrayType>(t))
      return (long)a->getNumElements();
    return (long)cast<VectorType>(t)->getElementCount().getKnownMinValue();
  }

  DenseMap<StructType *, unsigned> numbers;  // unnamed identified structs, as the printer numbers them

  // The type as the printer writes it (a named struct by its name, an unnamed one by its number).
  const std::string &text(Type *t) {
    auto it = textMemo.find(t);
    if (it != textMemo.end())
      return it->second;
    std::string s;
    if (auto *st = dyn_cast<StructType>(t)) {
      if (!st->isLiteral()) {
        s = "%" + (st->hasName() ? printedName(st->getName()) : std::to_string(numbers.lookup(st)));
      } else {
        s = st->isPacked() ? "<" : "";
        if (st->getNumElements() == 0) {
          s += "{}";
        } else {
          s += "{ ";
          for (unsigned k = 0; k < st->getNumElements(); ++k)
            s += (k ? ", " : "") + text(st->getElementType(k));
          s += " }";
        }
        if (st->isPacked())
          s += ">";
      }
    } else if (auto *a = dyn_cast<ArrayType>(t)) {
      s = "[" + std::to_string(a->getNumElements()) + " x " + text(a->getElementType()) + "]";
    } else if (auto *v = dyn_cast<VectorType>(t)) {
      s = std::string("<") + (isa<ScalableVectorType>(v) ? "vscale x " : "") +
          std::to_string(v->getElementCount().getKnownMinValue()) + " x " + text(v->getElementType()) + ">";
    } else if (auto *f = dyn_cast<FunctionType>(t)) {
      s = text(f->getReturnType()) + " (";
      for (unsigned k = 0; k < f->getNumParams(); ++k)
        s += (k ? ", " : "") + text(f->getParamType(k));
      if (f->isVarArg())
        s += f->getNumParams() ? ", ..." : "...";
      s += ")";
    } else {
      raw_string_ostream os(s);
      t->print(os, false, /*NoDetails=*/true);
      os.flush();
    }
    return textMemo[t] = s;
  }

  int nSlots(Type *t) {
    auto it = slotsMemo.find(t);
    if (it != slotsMemo.end())
      return it->second;
    int n = 1;
    if (isStruct(t)) {
      n = 0;
      for (Type *f : cast<StructType>(t)->elements())
        n += nSlots(f);
    } else if (isSeq(t)) {
      n = nSlots(elem(t));
    }
    return slotsMemo[t] = n;
  }

  const std::vector<int> &fieldPrefix(Type *t) {
    auto it = prefixMemo.find(t);
    if (it != prefixMemo.end())
      return it->second;
    std::vector<int> p;
    int acc = 0;
    for (Type *f : cast<StructType>(t)->elements()) {
      p.push_back(acc);
      acc += nSlots(f);
    }
    return prefixMemo[t] = std::move(p);
  }

  bool hasPtr(Type *t) {
    auto it = hasPtrMemo.find(t);
    if (it != hasPtrMemo.end())
      return it->second;
    bool h = false;
    if (t->isPointerTy())
      h = true;
    else if (isStruct(t))
      for (Type *f : cast<StructType>(t)->elements())
        h = h || hasPtr(f);
    else if (isSeq(t))
      h = hasPtr(elem(t));
    return hasPtrMemo[t] = h;
  }

  // a pointer-sized integer (i64), or an aggregate or vector holding one
  bool hasWord(Type *t) {
    auto it = hasWordMemo.find(t);
    if (it != hasWordMemo.end())
      return it->second;
    bool h = t->isIntegerTy(64);
    if (isStruct(t))
      for (Type *f : cast<StructType>(t)->elements())
        h = h || hasWord(f);
    else if (isSeq(t))
      h = hasWord(elem(t));
    return hasWordMemo[t] = h;
  }

  bool hasArray(Type *t) {  // types.TypeTable.has_array
    if (isStruct(t)) {
      for (Type *f : cast<StructType>(t)->elements())
        if (hasArray(f))
          return true;
      return false;
    }
    return isSeq(t);
  }

  void ptrSlots(Type *t, int base, std::vector<int> &out) {
    if (t->isPointerTy()) {
      out.push_back(base);
    } else if (isStruct(t)) {
      auto &p = fieldPrefix(t);
      auto *s = cast<StructType>(t);
      for (unsigned k = 0; k < s->getNumElements(); ++k)
        if (hasPtr(s->getElementType(k)))
          ptrSlots(s->getElementType(k), base + p[k], out);
    } else if (isSeq(t)) {
      ptrSlots(elem(t), base, out);
    }
  }

  // size and alignment by x86-64 rules of our own (not the module's data layout)
  std::pair<long, long> sizeAlign(Type *t) {
    auto it = layoutMemo.find(t);
    if (it != layoutMemo.end())
      return it->second;
    std::pair<long, long> lay{8, 8};
    if (isStruct(t)) {
      auto *s = cast<StructType>(t);
      long off = 0, align = 1;
      for (Type *f : s->elements()) {
        auto [fs, fa] = sizeAlign(f);
        if (!s->isPacked()) {
          off = (off + fa - 1) / fa * fa;
          align = std::max(align, fa);
        }
        off += fs;
      }
      lay = {(off + align - 1) / align * align, align};
    } else if (isa<ArrayType>(t)) {
      auto [es, ea] = sizeAlign(elem(t));
      lay = {es * count(t), ea};
    } else if (isa<VectorType>(t)) {
      long total = sizeAlign(elem(t)).first * count(t), align = 1;
      while (align < total && align < 64)
        align *= 2;
      lay = {(total + align - 1) / align * align, align};
    } else if (auto *it2 = dyn_cast<IntegerType>(t)) {
      long nbytes = ((long)it2->getBitWidth() + 7) / 8, align = 1;
      while (align < nbytes && align < 16)
        align *= 2;
      lay = {(nbytes + align - 1) / align * align, align};
    } else {
      switch (t->getTypeID()) {
      case Type::HalfTyID: case Type::BFloatTyID: lay = {2, 2}; break;
      case Type::FloatTyID: lay = {4, 4}; break;
      case Type::DoubleTyID: case Type::PointerTyID: case Type::X86_MMXTyID: lay = {8, 8}; break;
      case Type::X86_FP80TyID: case Type::FP128TyID: case Type::PPC_FP128TyID: lay = {16, 16}; break;
      case Type::X86_AMXTyID: lay = {1024, 64}; break;
      case Type::VoidTyID: case Type::LabelTyID: case Type::MetadataTyID: case Type::TokenTyID: lay = {0, 1}; break;
      case Type::StructTyID: lay = {0, 1}; break;  // opaque
      default: lay = {8, 8};
      }
    }
    return layoutMemo[t] = lay;
  }

  void slotOffsets(Type *t, long base, std::vector<long> &out) {
    if (isStruct(t)) {
      auto *s = cast<StructType>(t);
      long off = 0;
      for (Type *f : s->elements()) {
        auto [fs, fa] = sizeAlign(f);
        if (!s->isPacked())
          off = (off + fa - 1) / fa * fa;
        slotOffsets(f, base + off, out);
        off += fs;
      }
    } else if (isSeq(t)) {
      slotOffsets(elem(t), base, out);
    } else {
      out.push_back(base);
    }
  }

  // types.TypeTable.byte_to_slot (-1: None)
  long byteToSlot(Type *t, long off) {
    if (isStruct(t)) {
      auto *s = cast<StructType>(t);
      auto &p = fieldPrefix(t);
      long pos = 0;
      for (unsigned k = 0; k < s->getNumElements(); ++k) {
        auto [fs, fa] = sizeAlign(s->getElementType(k));
        if (!s->isPacked())
          pos = (pos + fa - 1) / fa * fa;
        if (pos <= off && off < pos + fs) {
          long inner = byteToSlot(s->getElementType(k), off - pos);
          return inner < 0 ? -1 : p[k] + inner;
        }
        pos += fs;
      }
      return -1;
    }
    if (isSeq(t)) {
      long es = sizeAlign(elem(t)).first;
      return es > 0 && off >= 0 ? byteToSlot(elem(t), off % es) : -1;
    }
    return off == 0 ? 0 : -1;
  }

  // byteToSlot of an offset past 64 bits: inside no struct field, and in an
  // array the same slot as its remainder
  long byteToSlot(Type *t, const APInt &off) {
    if (off.isNegative() || !isSeq(t))
      return -1;
    long es = sizeAlign(elem(t)).first;
    return es > 0 ? byteToSlot(elem(t), (long)off.urem((uint64_t)es)) : -1;
  }
};

// An index or constant operand:
// ``big`` for a constant past 64 bits (``k`` is then 0, ``c`` the constant).
struct IntKey {
  bool isConst = false;
  long k = 0;
  bool big = false;
  const ConstantInt *c = nullptr;
  bool isZero() const { return isConst && !big && k == 0; }
};

struct FuncInfo {
  Function *f;
  std::string name;   // printed, without '@'
  std::vector<Type *> params;
  bool vararg, defined;
  int obj = -1;
  int loc = 0;
  bool taken = false;  // its address is used as a value (modelBodies)
  int vaSlot() const { return obj + 2 + (int)params.size(); }
};

class Extractor {
public:
  Extractor(Module &m, const Models &models) : M(m), models(models) {}

  // Where "progress DONE TOTAL" lines go (instructions of defined functions), or nullptr.
  raw_ostream *progress = nullptr;
  // Every plainConstant global is the one object constantData() (else one object each).
  bool foldConstants = true;

  void run();
  void write(raw_ostream &out);

private:
  Module &M;
  const Models &models;
  Types T;
  Builder B;

  std::vector<StringRef> locTable{""};  // the keys of locIds
  StringMap<int> locIds;
  DenseMap<const Metadata *, int> mdLocMemo;
  DenseMap<std::pair<const Metadata *, unsigned>, int> lineMemo;  // DILocations differing only in column
  std::unordered_map<const Metadata *, std::string> mdFileMemo;  // node-based: references stay valid
  const DILocation *lastDL = nullptr;
  int lastDLId = 0;

  std::vector<StructType *> namedTypes;
  std::vector<Type *> globalTypes;
  int maxSlots = 1;
  std::vector<std::vector<long>> offsetTables;
  bool offsetTablesBuilt = false;
  std::unordered_map<long, int> windowMemo;
  std::vector<std::vector<long>> namedOffsetTables;  // namedWindow
  int namedMaxSlots = 1;
  std::unordered_map<long, int> namedWindowMemo;

  std::vector<FuncInfo> funcList;
  int maxParamSlots = 0;  // the most parameter cells of a function (its varargs' cell counted)
  int maxCallArgs = 0;    // the most arguments of a call (prescan)
  DenseMap<const Function *, int> funcIndex;
  DenseMap<const GlobalVariable *, int> globalObj, globalVal;
  DenseMap<const Function *, int> funcAddr;
  DenseMap<const GlobalValue *, int> aliasNode;  // aliases and ifuncs
  std::unordered_map<std::string, int> constCache;      // structural key -> node (-1: none)
  std::unordered_map<const Constant *, std::string> constKeyMemo;  // node-based: references stay valid
  std::unordered_map<std::string, int> staticObjs;
  int exc = -1, exportedNode = -1;

  // statistics
  long instructions = 0;
  std::vector<std::pair<std::string, long>> unmodelled, unknown;
  std::unordered_map<std::string, size_t> unmodelledIndex, unknownIndex;
  std::vector<long> opcodeCounts = std::vector<long>(Instruction::OtherOpsEnd, 0);
  std::vector<unsigned> opcodeOrder;  // opcodes in the order first seen
  std::vector<std::pair<std::string, long>> callbacks;  // "EXTERNAL\tFUNCTION"
  std::unordered_map<std::string, size_t> callbackIndex;
  long inlineAsm = 0, definedCount = 0, declaredCount = 0, globalCount = 0;
  long loadedCode = 0;  // dlsym calls with a library handle: code loaded at run time (loadedCodeObj)
  struct Check { std::string kind; int a, b; std::string loc, fn; };
  std::vector<Check> checks;

  // the function being read
  FuncInfo *fn = nullptr;
  const Instruction *cur = nullptr;
  DenseMap<const Value *, int> locals;
  DenseMap<const Value *, int> allocaObj;
  DenseMap<const Value *, Type *> allocaType;
  DenseMap<const Value *, int> slots;  // the printer's numbers of unnamed values
  DenseMap<Type *, uint8_t> tokenMemo;  // see loadStoreToken
  bool loadStoreToken(Type *t);
  bool gepToken(Type *t);
  const Instruction *lastHandled = nullptr;  // where nodes made after the body are located
  struct IntSources {
    std::vector<int> nodes;
    bool arith = false, opaque = false;
  };
  DenseMap<const Value *, IntSources> intMemo;
  DenseMap<int, int> smearMemo;  // smearOf
  std::vector<std::function<void()>> pending;  // integer tracing, once the body is read
  int i2pObj = -1;
  int constObj = -1;  // constantData()

  // ---- locations
  int intern(const std::string &s) {
    if (s.empty())
      return 0;
    auto [it, fresh] = locIds.try_emplace(s, (int)locTable.size());
    if (fresh)
      locTable.push_back(it->first());
    return it->second;
  }
  const std::string &mdFile(const Metadata *md, int depth);
  int mdLocation(const Metadata *md);
  int lineLocation(const DILocation *l);
  int curLoc() {
    if (cur == nullptr)
      return fn->loc;  // a parameter: its function's line
    const DILocation *l = cur->getDebugLoc().get();
    if (l != lastDL) {  // consecutive instructions mostly share one
      lastDL = l;
      lastDLId = l == nullptr ? 0 : lineLocation(l);
    }
    return lastDLId;
  }

  // ---- values
  std::string localName(const Value *v) {
    std::string out;
    appendLocalName(out, v);
    return out;
  }
  void appendLocalName(std::string &out, const Value *v);
  DenseMap<const GlobalValue *, unsigned> globalSlots;  // unnamed globals, as the printer numbers them
  std::string globalName(const GlobalValue *g) {
    if (!g->hasName())
      return std::to_string(globalSlots.lookup(g));
    return printedName(g->getName());
  }
  int local(const Value *v) {
    auto it = locals.find(v);
    if (it != locals.end())
      return it->second;
    int l = curLoc();
    B.names += fn->name;
    B.names += ":%";
    appendLocalName(B.names, v);
    int n = B.named(VALUE, l);
    locals[v] = n;
    return n;
  }
  static bool isLocal(const Value *v) { return isa<Instruction>(v) || isa<Argument>(v); }
  bool isVal(const Value *v) { return isLocal(v) || isa<GlobalValue>(v); }  // printed as a plain %x or @x
  // a pointer operand printed "ptr %x" (address space 0, not a vector)
  static bool plainPtr(const Value *v) { return v->getType()->isPointerTy() && v->getType()->getPointerAddressSpace() == 0; }
  // dso_local_equivalent @f and no_cfi @f are @f; ptrauth (ptr @f, ...) is its pointer
  static const Value *unwrapped(const Value *v) {
    if (auto *e = dyn_cast<DSOLocalEquivalent>(v))
      return e->getGlobalValue();
    if (auto *e = dyn_cast<NoCFIValue>(v))
      return e->getGlobalValue();
    if (auto *e = dyn_cast<ConstantPtrAuth>(v))
      return unwrapped(e->getPointer());
    return v;
  }
  int globalNode(const GlobalValue *g);
  int nodeOf(const Value *v);
  int constNode(const Constant *c);
  int buildConst(const Constant *c);
  const std::string &constKey(const Constant *c);
  IntKey intKey(const Value *v) {
    if (auto *ci = dyn_cast<ConstantInt>(v)) {
      if (ci->getBitWidth() == 1)
        return {true, (long)ci->getZExtValue()};
      if (ci->getValue().getSignificantBits() > 64)
        return {true, 0, true, ci};
      return {true, (long)ci->getSExtValue()};
    }
    return {};
  }
  // the slot of byte offset ``k`` in an object of type ``t`` (-1: none)
  long byteSlot(Type *t, const IntKey &k) { return k.big ? T.byteToSlot(t, k.c->getValue()) : T.byteToSlot(t, k.k); }

  // ---- layout
  std::pair<long, bool> gepPlan(Type *ty, ArrayRef<IntKey> idx);
  int gepNode(Type *ty, int base, ArrayRef<IntKey> idx, const std::string &name, const Value *baseV = nullptr) {
    auto [off, sm] = gepPlan(ty, idx);
    auto [lo, hi] = gepSlots(ty, off, sm, idx, baseV);
    if (lo < hi)
      return slotsNode(base, lo, hi, name);
    int node = B.offset(base, lo, name);
    return sm ? B.smear(node, name + ".any") : node;
  }
  // The slots [lo, hi] a gep of type `ty` on baseV lands on, gepPlan having placed it at `off`
  // (`sm`: smeared): a view of baseV's memory (viewSlots) where it indexes from baseV itself (first
  // index 0) at a known place; else [off, off].
  std::pair<long, long> gepSlots(Type *ty, long off, bool sm, ArrayRef<IntKey> idx, const Value *baseV) {
    if (sm || baseV == nullptr || idx.empty() || !idx[0].isZero())
      return {off, off};
    return viewSlots(ty, off, knownType(baseV));
  }
  // A node holding base + k for every k of [lo, hi] (viewSlots).
  int slotsNode(int base, long lo, long hi, const std::string &name) {
    int t = B.node(name);
    for (long k = lo; k <= hi; ++k)
      if (k == 0)
        B.copy(t, base);
      else
        B.gep(t, base, k);
    return t;
  }
  // The type of the object baseV points to the start of, where the front end knows it: an alloca's,
  // an allocation call's by its uses (heapUse), a global's; else nullptr.
  Type *knownType(const Value *baseV) {
    Type *known = nullptr;
    if (isLocal(baseV))
      known = allocaType.lookup(baseV);
    if (auto used = heapUse.find(baseV); known == nullptr && used != heapUse.end())
      known = used->second.type;
    else if (auto *gv = dyn_cast<GlobalVariable>(baseV))
      known = gv->getValueType();
    return known;
  }
  static bool isLiteralStruct(Type *t) {
    auto *st = dyn_cast<StructType>(t);
    return st != nullptr && st->isLiteral();
  }
  // The slots [lo, hi] of memory of type `known` (nullptr: not known) that slot `slot` of type `view`
  // may be. Where the two types differ and one is a literal struct, the slot at the same byte offset:
  // clang passes and returns a small struct in registers through a literal view of it ({ i64, ptr }
  // for struct jv { char kind, pad; short off; int size; union { void *p; } u; }), stored, loaded and
  // indexed on the struct's own memory, where slot 1 of the view is slot 4 of the struct. On memory of
  // unknown type, any slot the view's slot can be: each field of the view before it covers one slot
  // if it is a pointer and up to its bytes otherwise ({ i64, ptr }: slot 1 is slot 1 to 8). Else
  // (the same type, two named types, an offset inside no slot of `known`): [slot, slot].
  std::pair<long, long> viewSlots(Type *view, long slot, Type *known) {
    if (known == view || !(isLiteralStruct(view) || (known != nullptr && isLiteralStruct(known))))
      return {slot, slot};
    std::vector<long> offs;
    T.slotOffsets(view, 0, offs);
    if (slot < 0 || slot >= (long)offs.size())
      return {slot, slot};
    if (known != nullptr) {
      long k = T.byteToSlot(known, offs[slot]);
      return k >= 0 ? std::pair<long, long>{k, k} : std::pair<long, long>{slot, slot};
    }
    std::vector<int> ptrs;
    T.ptrSlots(view, 0, ptrs);
    long hi = slot;
    for (long j = 0; j < slot; ++j)
      if (std::find(ptrs.begin(), ptrs.end(), (int)j) == ptrs.end())
        hi += std::max(0L, offs[j + 1] - offs[j] - 1);
    return {slot, hi};
  }
  int window(long nbytes);
  int namedWindow(long nbytes);
  std::pair<int, int> objectLayout(Type *ty, long count);
  // A heap object: window(nbytes) slots (maxSlots when the size is unknown), fewer where its
  // use says so (heapUse: the slots its uses need, one when it is collapsed). Of unknown size
  // and use, its layout is unknown: one field-insensitive node (every gep from it yields it),
  // where maxSlots slots would put each of them in every set that holds one.
  int heapObject(const std::string &name, std::optional<long> nbytes, int l, const Value *site = nullptr) {
    bool unknown = !nbytes || *nbytes <= 0;
    int n = unknown ? maxSlots : std::max(1, std::min(maxSlots, window(*nbytes)));
    auto used = site ? heapUse.find(site) : heapUse.end();
    if (used != heapUse.end())
      n = std::max(1, std::min(n, used->second.slots));
    else if (unknown)
      return B.insensitiveObj(name, l);
    return B.obj(name, n, OBJECT, l);
  }
  // A global or alloca of objectLayout's {slots, reach}. Where its type declares one slot and the
  // rest is a tail (reach 1: an array of scalars, a char buffer, alloca(n)), what it holds is
  // known only as "anywhere in its bytes": one field-insensitive node, which every read through
  // another type lands on as it would on a slot of the tail.
  int declaredObject(const std::string &name, int slots, int reach, int l) {
    if (reach == 1 && slots > 1)
      return B.insensitiveObj(name, l);
    return B.obj(name, slots, OBJECT, l, nullptr, reach);
  }
  // ---- heap objects typed by their use (useLayout)
  struct HeapUse {
    int slots;            // every slot a constraint on a pointer into the object can land on is below
    Type *type;           // the one struct type it is used as from its start (nullptr: none or several)
    bool collapsed;       // one field-insensitive node; the geps of its pointers are copies
  };
  DenseMap<const Value *, HeapUse> heapUse;   // allocation call -> its layout (absent: not known)
  DenseSet<const Value *> collapsedPtrs;      // the pointers into collapsed objects (all they point to)
  void typeHeapSites(const Function &f);
  std::optional<HeapUse> useLayout(const CallBase &site, std::vector<const Value *> &closure);
  std::string aliasCheckName(const std::string &callee) const;
  int selfLinked(const std::string &name, int l, std::optional<int> slots) {
    int o = slots ? B.obj(name, *slots, OBJECT, l) : heapObject(name, std::nullopt, l);
    int t = B.node(name + ".self");
    B.addr(t, o);
    int anywhere = B.smear(t, name + ".any");
    for (int k = 0; k < B.size[o]; ++k)
      B.copy(o + k, anywhere);
    return o;
  }
  int staticObj(const std::string &key);
  std::optional<int> recordSlots(const std::string &callee);
  int staticTextObj(const std::string &callee) {
    std::string key = callee + "()text";
    auto it = staticObjs.find(key);
    if (it != staticObjs.end())
      return it->second;
    return staticObjs[key] = B.obj("*" + callee + "()", recordSlots(callee).value_or(1), OBJECT, 0);
  }
  int unknownObj(const std::string &callee) {  // ModuleExtractor.unknown_obj
    std::string key = callee + "()unknown";
    auto it = staticObjs.find(key);
    if (it != staticObjs.end())
      return it->second;
    return staticObjs[key] = heapObject("*" + callee + "()", std::nullopt, 0);
  }
  int callReached(int from, const std::string &name);
  int loadedFn = -1;  // the function object of code loaded at run time (loadedCodeObj)
  int loadedCodeObj();
  void unmodelledCall(const std::string &callee, const std::vector<int> &args, int result, const std::string &name,
                      const std::vector<const FuncInfo *> &callbacks);
  void libraryGlobal(GlobalVariable &g);
  void modelBodies();
  void applyModel(const std::string &callee, const std::vector<Effect> &model, const std::vector<int> &args,
                  const std::function<std::optional<long>(size_t)> &constArg, int result, const std::string &name,
                  int loc, bool inFunction);
  // dst = v, when v has a node (nodeOf after dst: node ids are numbered in that order)
  void copyFrom(int dst, const Value *v) {
    int src = nodeOf(v);
    if (src >= 0)
      B.copy(dst, src);
  }
  // The one object of every read-only global whose initializer holds no address (string
  // literals, tables of numbers: plainConstant): a field-insensitive node, as SVF's one constant
  // object (its option -model-consts off). Nothing can be read from such memory as a pointer, and
  // nothing may be written there, so one object loses no pointer and no mod/ref answer; it only
  // stops telling two literals apart (Extractor::foldConstants false keeps one object each).
  int constantData() {
    if (constObj < 0)
      constObj = B.insensitiveObj("<constant data>", 0);
    return constObj;
  }
  // A constant global (its definition final in this program) whose initializer is data alone:
  // no global, function, block address or constant expression anywhere in it.
  static bool plainConstant(const GlobalVariable &g) {
    if (!g.isConstant() || !g.hasDefinitiveInitializer())
      return false;
    std::vector<const Constant *> work{g.getInitializer()};
    while (!work.empty()) {
      const Constant *c = work.back();
      work.pop_back();
      if (isa<ConstantData>(c))  // integers, floats, null, undef, zeroes, strings and data arrays
        continue;
      if (!isa<ConstantAggregate>(c))
        return false;
      for (const Use &u : c->operands())
        work.push_back(cast<Constant>(u.get()));
    }
    return true;
  }
  int i2p() {
    if (i2pObj < 0)
      i2pObj = B.obj("<int-to-pointer>", 1, OBJECT, 0);
    return i2pObj;
  }
  // t = the pointers an integer with sources s may hold (s.arith: anywhere at or after them)
  void intInto(int t, const IntSources &s, const std::string &name) {
    for (int n : s.nodes)
      B.copy(t, s.arith ? smearOf(n, name) : n);
  }
  // Builder::smear of n, made once per node
  int smearOf(int n, const std::string &name) {
    auto [it, fresh] = smearMemo.try_emplace(n, -1);
    if (fresh)
      it->second = B.smear(n, name);
    return it->second;
  }
  // The pointer an inttoptr of an integer with sources s makes (into t)
  void intToPtr(int t, const IntSources &s, const std::string &name) {
    intInto(t, s, name);
    if (s.opaque || s.nodes.empty())
      B.addr(t, i2p());
  }
  int intToPtrNode(const IntSources &s, const std::string &name) {
    int t = B.node(name);
    intToPtr(t, s, name + ".any");
    return t;
  }
  // The node an integer-typed call result, argument or va_arg lands in (intSources)
  int intNode(const Value *v) { return B.node(fn->name + ":%" + localName(v) + ".int", VALUE, curLoc()); }
  void intCallResult(const CallBase &I, int node);
  void intArgsLater(const CallBase &I);
  static bool isPtrToInt(const Value *v) {  // an instruction or a constant expression
    auto *o = dyn_cast<Operator>(v);
    return o != nullptr && o->getOpcode() == Instruction::PtrToInt;
  }
  // whether a value of type t may carry a pointer as a pointer-sized integer
  bool isWord(Type *t) { return T.hasWord(t); }
  IntSources intSources(const Value *v);
  IntSources constIntSources(const Value *v);
  void storeInts(const Value *ptr, const Value *v, const std::string &name, bool pointerSized = true);
  void storeIntLater(const Value *p, const Value *v) {
    bool sized = isWord(v->getType());
    pending.push_back([this, p, v, sized] {
      storeInts(p, v, fn->name + (isLocal(v) ? ":%" + localName(v) : std::string(":store.int")) + ".any", sized);
    });
  }
  // a store of v's type and form may hold a pointer as integers (iStore)
  bool storesInts(const Value *v) {
    Type *ty = v->getType();
    return (isWord(ty) || ty->isIntegerTy(8)) && (isLocal(v) || isa<ConstantExpr>(v) || isa<ConstantAggregate>(v));
  }
  void intExchange(const Value *p, const Value *v) {  // an atomic exchange of a pointer-sized integer
    pending.push_back([this, p, v] {
      int dst = nodeOf(p);
      if (dst < 0 || !isLocal(v))
        return;
      IntSources s = intSources(v);
      for (int n : s.nodes)
        B.store(dst, s.arith ? smearOf(n, fn->name + ":xchg.any") : n);
    });
  }
  // I = *ptr; *ptr = val for an atomic exchange (cmpxchg's new value, atomicrmw's operand);
  // nothing unless val's type can hold a pointer.
  void swap(const Instruction &I, const Value *ptr, const Value *val) {
    if (!T.hasPtr(val->getType()))
      return;
    int p = nodeOf(ptr), v = nodeOf(val);
    if (p < 0)
      return;
    B.load(local(&I), p);
    if (v >= 0)
      B.store(p, v);
  }
  int exception() {
    if (exc < 0)
      exc = B.node("<exception>");
    return exc;
  }
  int exported() {  // ModuleExtractor.exported
    if (exportedNode < 0) {
      exportedNode = B.node("<exported functions>");
      for (FuncInfo &fi : funcList)
        if (fi.defined && !fi.f->hasLocalLinkage())
          B.addr(exportedNode, fi.obj);
    }
    return exportedNode;
  }
  void indirectCall(int fp, const std::vector<int> &args, int result, int nfixed, const std::string &name);

  // ---- passes
  void declare();
  void prescan();
  void initGlobal(Type *ty, const Constant *v, int obj, int slot);
  void runFunction(FuncInfo &fi);
  void instruction(const Instruction &I);
  void iLoad(const LoadInst &I);
  void iStore(const StoreInst &I);
  void iGep(const GetElementPtrInst &I);
  void iCall(const CallBase &I);
  void external(const std::string &callee, const std::vector<int> &args, const CallBase &I, int result);
  void count(std::vector<std::pair<std::string, long>> &v, std::unordered_map<std::string, size_t> &index,
             const std::string &key) {
    auto [it, fresh] = index.emplace(key, v.size());
    if (fresh)
      v.emplace_back(key, 0);
    v[it->second].second += 1;
  }

  // ---- access sites (the alias facts' instructions; "access sites" below)
public:
  bool recordSites = false;
  void writeSites(raw_ostream &out);

private:
  struct SiteTable {
    std::vector<int32_t> index, width, fp, result, indptr{0}, nodes;
    std::vector<int8_t> kind, cls;
    std::string strings;  // function, block, location, pointer, callee of each site, '\0' after each
    std::vector<std::pair<std::string, int8_t>> functionClass;
  } sites;
  std::vector<Type *> allocaLiterals;  // literal struct types of allocas (and arrays of them)
  bool allocaLiteralsFound = false;
  std::unordered_map<long, int> siteWindowMemo;
  std::unique_ptr<ModuleSlotTracker> slotTracker;  // for printing constant operands
  void sitesOf(FuncInfo &fi);
  void site(int kind, const std::string &block, int index, const Instruction &I, const std::string &pointer,
            const std::vector<int> &nodes, int width, int cls = -1, const std::string &callee = "", int fp = -1,
            int result = -1);
  int siteNode(const Value *v);
  int siteWindow(long nbytes);
  int siteWidth(Type *t) { return std::max(T.nSlots(t), siteWindow(std::max(1L, T.sizeAlign(t).first))); }
  std::string operandToken(const Value *v);
  std::string valueText(const Value *v);
  int calleeClass(const Function *f);
};

// ------------------------------------------------------------ locations
// The file of a DIFile, else of the node's file, else of its scope
const std::string &Extractor::mdFile(const Metadata *md, int depth) {
  auto it = mdFileMemo.find(md);
  if (it != mdFileMemo.end())
    return it->second;
  std::string out;
  const Metadata *file = nullptr, *scope = nullptr;
  if (auto *f = dyn_cast<DIFile>(md)) {
    raw_string_ostream os(out);
    printEscapedString(f->getFilename(), os);
    os.flush();
  } else if (auto *s = dyn_cast<DILocation>(md)) {
    scope = s->getRawScope();
  } else if (auto *s = dyn_cast<DIScope>(md)) {
    if (isa<DICompileUnit>(s) || isa<DISubprogram>(s) || isa<DILexicalBlockBase>(s) || isa<DIType>(s)) {
      file = s->getRawFile();
      if (!isa<DICompileUnit>(s))
        scope = s->getScope();
    } else if (auto *cb = dyn_cast<DICommonBlock>(s)) {
      file = cb->getRawFile();
      scope = cb->getRawScope();
    } else {  // a namespace (no file), a module
      file = s->getRawFile();
      scope = s->getScope();
    }
  } else if (auto *v = dyn_cast<DIVariable>(md)) {
    file = v->getRawFile();
    scope = v->getRawScope();
  } else if (auto *l = dyn_cast<DILabel>(md)) {
    file = l->getRawFile();
    scope = l->getRawScope();
  } else if (auto *e = dyn_cast<DIImportedEntity>(md)) {
    file = e->getRawFile();
    scope = e->getRawScope();
  }  // anything else (a tuple, an expression) names no file
  if (out.empty() && file != nullptr)
    out = mdFile(file, depth + 1);
  else if (out.empty() && scope != nullptr && depth < 50)
    out = mdFile(scope, depth + 1);
  return mdFileMemo[md] = out;
}

// "file:line" of a DILocation ("?" for the file when its scope has none)
int Extractor::lineLocation(const DILocation *l) {
  int &hit = lineMemo[{l->getRawScope(), l->getLine()}];
  if (hit == 0) {
    const std::string &f = mdFile(l->getRawScope(), 0);
    hit = intern((f.empty() ? std::string("?") : f) + ":" + std::to_string(l->getLine()));
  }
  return hit;
}

// "file:line" of a location, variable, subprogram, ...
int Extractor::mdLocation(const Metadata *md) {
  auto it = mdLocMemo.find(md);
  if (it != mdLocMemo.end())
    return it->second;
  int id = 0;
  if (auto *l = dyn_cast<DILocation>(md)) {
    id = lineLocation(l);
  } else if (auto *e = dyn_cast<DIGlobalVariableExpression>(md)) {
    id = e->getRawVariable() ? mdLocation(e->getRawVariable()) : 0;
  } else {
    unsigned line = 0;  // the printer skips a zero line, and then there is no location
    if (auto *v = dyn_cast<DIVariable>(md))
      line = v->getLine();
    else if (auto *s = dyn_cast<DISubprogram>(md))
      line = s->getLine();
    else if (auto *b = dyn_cast<DILexicalBlock>(md))
      line = b->getLine();
    else if (auto *lb = dyn_cast<DILabel>(md))
      line = lb->getLine();
    else if (auto *ty = dyn_cast<DIType>(md))
      line = ty->getLine();
    else if (auto *e = dyn_cast<DIImportedEntity>(md))
      line = e->getLine();
    if (line != 0) {
      const std::string &f = mdFile(md, 0);
      id = intern((f.empty() ? std::string("?") : f) + ":" + std::to_string(line));
    }
  }
  return mdLocMemo[md] = id;
}

// --------------------------------------------------------------- values
void Extractor::appendLocalName(std::string &out, const Value *v) {
  if (v->hasName()) {
    StringRef name = v->getName();
    if (needsQuotes(name))
      out += printedName(name);
    else
      out.append(name.data(), name.size());
    return;
  }
  auto it = slots.find(v);
  if (it == slots.end())
    unsupported("unnumbered local value");
  out += std::to_string(it->second);
}

int Extractor::globalNode(const GlobalValue *g) {
  if (auto *gv = dyn_cast<GlobalVariable>(g))
    return globalVal.lookup(gv);
  if (auto *f = dyn_cast<Function>(g)) {
    auto it = funcAddr.find(f);
    if (it != funcAddr.end())
      return it->second;
    FuncInfo &fi = funcList[funcIndex.lookup(f)];
    fi.taken = true;
    int node = B.node("&@" + globalName(f));
    B.addr(node, fi.obj);
    return funcAddr[f] = node;
  }
  // an alias or ifunc: a value holding what its aliasee holds (an ifunc: the
  // functions its resolver returns), made where it is first used
  auto it = aliasNode.find(g);
  if (it != aliasNode.end())
    return it->second;
  int node = B.node("@" + globalName(g));
  aliasNode[g] = node;
  const Constant *target = nullptr;
  if (auto *a = dyn_cast<GlobalAlias>(g)) {
    target = a->getAliasee();
  } else {
    target = cast<GlobalIFunc>(g)->getResolver();
    if (auto *f = dyn_cast<Function>(target)) {
      B.copy(node, funcList[funcIndex.lookup(f)].obj + 1);
      return node;
    }
  }
  int src = target ? nodeOf(target) : -1;
  if (src >= 0)
    B.copy(node, src);
  return node;
}

// The node of a value: -1 where it holds no pointer
int Extractor::nodeOf(const Value *v) {
  v = unwrapped(v);
  if (isLocal(v))
    return local(v);
  if (auto *g = dyn_cast<GlobalValue>(v))
    return globalNode(g);
  if (auto *c = dyn_cast<Constant>(v)) {
    if (isa<ConstantInt>(c) || isa<ConstantPointerNull>(c) || isa<UndefValue>(c) || isa<ConstantFP>(c) ||
        isa<ConstantAggregateZero>(c) || isa<ConstantTokenNone>(c) || isa<ConstantTargetNone>(c) ||
        isa<ConstantDataSequential>(c) || isa<BlockAddress>(c))
      return -1;
    return constNode(c);
  }
  if (isa<MetadataAsValue>(v) || isa<BasicBlock>(v) || isa<InlineAsm>(v))
    return -1;
  unsupported("operand kind");
}

// The extractor's parsed form of a constant, as a string: constants it parses
// to the same tuple share one cached node (const_cache).
const std::string &Extractor::constKey(const Constant *c) {
  auto it = constKeyMemo.find(c);
  if (it != constKeyMemo.end())
    return it->second;
  std::string k;
  if (unwrapped(c) != c) {
    k = constKey(cast<Constant>(unwrapped(c)));
  } else if (auto *g = dyn_cast<GlobalValue>(c)) {
    k = "@" + globalName(g);
  } else if (auto *ci = dyn_cast<ConstantInt>(c)) {
    IntKey ik = intKey(ci);
    k = "i" + (ik.big ? toString(ci->getValue(), 10, /*Signed=*/true) : std::to_string(ik.k));
  } else if (isa<ConstantPointerNull>(c) || isa<UndefValue>(c) || isa<ConstantFP>(c) ||
             isa<ConstantAggregateZero>(c) || isa<ConstantTokenNone>(c) || isa<ConstantTargetNone>(c) ||
             isa<BlockAddress>(c) || (isa<ConstantDataSequential>(c) && !T.hasPtr(c->getType()))) {
    k = "N";
  } else if (isa<ConstantAggregate>(c)) {
    k = "agg(";
    for (const Use &u : c->operands())
      k += T.text(u->getType()) + " " + constKey(cast<Constant>(u.get())) + ";";
    k += ")";
  } else if (auto *ce = dyn_cast<ConstantExpr>(c)) {
    if (auto *gep = dyn_cast<GEPOperator>(ce)) {
      k = "gep(" + T.text(gep->getSourceElementType()) + "|" + constKey(cast<Constant>(gep->getPointerOperand()));
      for (const Use &u : gep->indices())
        k += "," + constKey(cast<Constant>(u.get()));
      k += ")";
    } else if (ce->isCast()) {
      k = std::string("cast(") + ce->getOpcodeName() + "," + constKey(ce->getOperand(0)) + ")";
    } else {
      k = "int(";
      for (const Use &u : ce->operands())
        k += constKey(cast<Constant>(u.get())) + ";";
      k += ")";
    }
  } else {
    unsupported("constant kind");
  }
  return constKeyMemo[c] = k;
}

int Extractor::constNode(const Constant *c) {
  const std::string &key = constKey(c);
  auto it = constCache.find(key);
  if (it != constCache.end())
    return it->second;
  int node = buildConst(c);
  constCache[key] = node;
  return node;
}

// The node of a constant (constNode() shares one between equal keys)
int Extractor::buildConst(const Constant *c) {
  if (unwrapped(c) != c)
    return nodeOf(unwrapped(c));
  if (auto *g = dyn_cast<GlobalValue>(c))
    return globalNode(g);
  if (isa<ConstantAggregate>(c)) {
    std::vector<int> nodes;
    for (const Use &u : c->operands()) {
      int x = nodeOf(u.get());
      if (x >= 0)
        nodes.push_back(x);
    }
    if (nodes.empty())
      return -1;
    if (nodes.size() == 1)
      return nodes[0];
    int t = B.node("cexpr.agg");
    for (int x : nodes)
      B.copy(t, x);
    return t;
  }
  auto *ce = dyn_cast<ConstantExpr>(c);
  if (ce == nullptr)
    return -1;
  if (auto *gep = dyn_cast<GEPOperator>(ce)) {
    const Value *baseV = gep->getPointerOperand();
    int base = nodeOf(baseV);
    if (base < 0)
      return -1;
    SmallVector<IntKey, 4> idx;
    for (const Use &u : gep->indices())
      idx.push_back(intKey(u.get()));
    if (auto *gv = dyn_cast<GlobalVariable>(baseV)) {
      Type *st = gep->getSourceElementType();
      if (st->isIntegerTy(8) && idx.size() == 1 && idx[0].isConst) {
        long slot = byteSlot(gv->getValueType(), idx[0]);
        if (slot >= 0)
          return B.offset(base, slot, "cexpr");
      }
    }
    return gepNode(gep->getSourceElementType(), base, idx, "cexpr");
  }
  if (ce->getOpcode() == Instruction::BitCast || ce->getOpcode() == Instruction::AddrSpaceCast)
    return nodeOf(ce->getOperand(0));
  if (ce->getOpcode() == Instruction::PtrToInt)
    return -1;  // an integer: its pointers are traced where it is used (intSources)
  if (ce->getOpcode() == Instruction::IntToPtr)
    return intToPtrNode(constIntSources(ce->getOperand(0)), "cexpr.inttoptr");
  return -1;  // other casts and integer expressions hold no pointer in a pointer context
}

// Where a constant integer's pointers come from
Extractor::IntSources Extractor::constIntSources(const Value *v) {
  if (isa<ConstantInt>(v) || isa<ConstantPointerNull>(v) || isa<UndefValue>(v) || isa<ConstantFP>(v) ||
      isa<ConstantAggregateZero>(v) || isa<ConstantTokenNone>(v) || isa<BlockAddress>(v) ||
      (isa<ConstantDataArray>(v) && cast<ConstantDataArray>(v)->isString()))
    return {};  // printed as a number or a word the value parser reads as None
  auto *ce = dyn_cast<ConstantExpr>(v);
  if (ce != nullptr && ce->isCast()) {
    if (ce->getOpcode() == Instruction::PtrToInt) {
      int n = nodeOf(ce->getOperand(0));
      IntSources r;
      if (n >= 0)
        r.nodes.push_back(n);
      return r;
    }
    return constIntSources(ce->getOperand(0));
  }
  if (ce != nullptr && ce->getOpcode() == Instruction::Sub && isPtrToInt(ce->getOperand(0)) &&
      isPtrToInt(ce->getOperand(1))) {
    IntSources r;  // p - q of two pointers: a distance (intSources)
    r.opaque = true;
    return r;
  }
  if (ce != nullptr && !isa<GEPOperator>(ce)) {  // integer arithmetic
    IntSources r;
    for (const Use &u : ce->operands()) {
      IntSources x = constIntSources(u.get());
      r.nodes.insert(r.nodes.end(), x.nodes.begin(), x.nodes.end());
      r.opaque = r.opaque || x.opaque;
    }
    r.arith = true;
    return r;
  }
  IntSources r;
  if (isa<ConstantAggregate>(v) && !T.hasPtr(v->getType())) {  // { i64 ptrtoint (@x), i64 0 }
    for (const Use &u : cast<Constant>(v)->operands()) {
      IntSources x = constIntSources(u.get());
      r.nodes.insert(r.nodes.end(), x.nodes.begin(), x.nodes.end());
      r.arith = r.arith || x.arith;
      r.opaque = r.opaque || x.opaque;
    }
    return r;
  }
  r.opaque = true;  // a global, an aggregate of pointers, a gep: of unknown use as an integer
  return r;
}

// Trace a local integer back to the pointers it came from: through arithmetic, casts,
// phi, select and aggregates to ptrtoint values, and, for pointer-sized integers, to the
// nodes that bring them in from memory (a load), a caller (an argument), a callee (a call
// result) or a va_list. ``opaque``: the integer may also be one of no pointer origin.
Extractor::IntSources Extractor::intSources(const Value *v) {
  auto hit = intMemo.find(v);
  if (hit != intMemo.end())
    return hit->second;
  intMemo[v] = IntSources{};  // cycles through phi: no new sources
  IntSources r;
  r.opaque = true;
  if (T.hasPtr(v->getType())) {  // an aggregate holding pointers: its node holds the integers too
    r.nodes.push_back(nodeOf(v));
  } else if (auto *A = dyn_cast<Argument>(v)) {
    if (isWord(A->getType())) {
      int t = intNode(A);
      B.copy(t, fn->obj + 2 + (int)A->getArgNo());
      r.nodes.push_back(t);
    }
  } else if (auto *I = dyn_cast<Instruction>(v)) {
    unsigned op = I->getOpcode();
    switch (op) {
    case Instruction::PtrToInt: {
      int n = nodeOf(I->getOperand(0));
      r = IntSources{};
      if (n >= 0)
        r.nodes.push_back(n);
      break;
    }
    case Instruction::Add: case Instruction::Sub: case Instruction::Or: case Instruction::And:
    case Instruction::Xor: case Instruction::Mul: case Instruction::Shl: case Instruction::LShr:
    case Instruction::AShr: case Instruction::UDiv: case Instruction::SDiv: case Instruction::URem:
    case Instruction::SRem: case Instruction::Trunc: case Instruction::ZExt: case Instruction::SExt:
    case Instruction::BitCast: case Instruction::Freeze: case Instruction::Select: case Instruction::PHI:
    case Instruction::ExtractValue: case Instruction::InsertValue: case Instruction::ExtractElement:
    case Instruction::InsertElement: case Instruction::ShuffleVector: {
      std::vector<const Value *> vals;
      if (op == Instruction::PHI)
        for (const Value *x : cast<PHINode>(I)->incoming_values())
          vals.push_back(x);
      else if (op == Instruction::Select)
        vals = {I->getOperand(1), I->getOperand(2)};
      else if (I->getNumOperands() == 1 || op == Instruction::ExtractElement)
        vals = {I->getOperand(0)};
      else
        vals = {I->getOperand(0), I->getOperand(1)};
      if (op == Instruction::Sub && isPtrToInt(I->getOperand(0)) && isPtrToInt(I->getOperand(1)))
        break;  // p - q of two pointers: a distance, of no pointer origin (it carries neither)
      r = IntSources{};
      r.arith = I->isBinaryOp();
      DenseSet<int> seen;  // once each: diamonds would repeat them
      for (const Value *x : vals) {
        if (isa<ConstantInt>(x) || isa<ConstantPointerNull>(x) || isa<UndefValue>(x) || isa<ConstantFP>(x) ||
            isa<ConstantAggregateZero>(x) || isa<ConstantDataSequential>(x))
          continue;
        IntSources s = isLocal(x) ? intSources(x) : constIntSources(x);
        for (int n : s.nodes)
          if (seen.insert(n).second)
            r.nodes.push_back(n);
        r.arith = r.arith || s.arith;
        r.opaque = r.opaque || s.opaque;
      }
      break;
    }
    case Instruction::Load: case Instruction::AtomicRMW: case Instruction::AtomicCmpXchg: {
      const Value *p = op == Instruction::Load ? cast<LoadInst>(I)->getPointerOperand() : I->getOperand(0);
      int src = nodeOf(p);
      if (src >= 0) {
        std::string name = fn->name + ":%" + localName(I) + ".asptr";
        int t = B.node(name);
        int slots = I->getType()->isIntegerTy() ? 1 : T.nSlots(I->getType());  // an aggregate: each slot
        for (int k = 0; k < slots; ++k)
          B.load(t, B.offset(src, k, name + ".slot" + std::to_string(k)));
        r.nodes.push_back(t);
      }
      break;
    }
    case Instruction::Call: case Instruction::Invoke: case Instruction::CallBr:
      if (isWord(I->getType())) {
        int t = intNode(I);
        intCallResult(cast<CallBase>(*I), t);
        r.nodes.push_back(t);
      }
      break;
    case Instruction::VAArg: {
      int ap = nodeOf(I->getOperand(0));
      if (ap >= 0 && isWord(I->getType())) {
        std::string name = fn->name + ":%" + localName(I);
        int area = B.node(name + ".va_area");
        B.load(area, B.smear(ap, name + ".va_list"));
        int t = intNode(I);
        B.load(t, B.smear(area, name + ".va_args"));
        r.nodes.push_back(t);
      }
      break;
    }
    default:
      break;  // of no pointer origin (a comparison, a float conversion, ...)
    }
  }
  intMemo[v] = r;
  return r;
}

// Into ``node``: the integer result of call I, as it would receive a pointer result
// (an external's model makes no integer from a pointer; one without a model may return
// anywhere in its pointer arguments).
void Extractor::intCallResult(const CallBase &I, int node) {
  const Value *callee = unwrapped(I.getCalledOperand());
  if (isa<InlineAsm>(callee))
    return;
  if (isLocal(callee) || !isa<GlobalValue>(callee) || !isa<Function>(callee)) {
    int fp = isa<GlobalValue>(callee) ? globalNode(cast<GlobalValue>(callee)) : nodeOf(callee);
    if (fp >= 0) {
      int t = B.node(fn->name + ":%" + localName(&I) + ".icall.ret");
      B.callGep(t, fp, 1);
      B.load(node, t);
    }
    return;
  }
  FuncInfo &info = funcList[funcIndex.lookup(cast<Function>(callee))];
  if (info.defined) {
    B.copy(node, info.obj + 1);
  } else if (models.modelFor(info.name) == nullptr) {
    for (const Use &a : I.args())
      if (T.hasPtr(a->getType())) {
        int x = nodeOf(a.get());
        if (x >= 0)
          B.copy(node, smearOf(x, fn->name + ":%" + localName(&I) + ".returned"));
      }
  }
}

// The pointer-sized integer arguments of call I, passed as pointers are (iCall), once
// the body is read: into a defined callee's parameter slots (its va slot past them) or
// through the function pointer's slots.
void Extractor::intArgsLater(const CallBase &I) {
  const Value *callee = unwrapped(I.getCalledOperand());
  if (isa<InlineAsm>(callee))
    return;
  const FuncInfo *info = nullptr;
  if (auto *f = dyn_cast<Function>(callee)) {
    info = &funcList[funcIndex.lookup(f)];
    if (!info->defined)
      return;  // an external: its models move pointers only
  }
  std::vector<std::pair<unsigned, const Value *>> words;
  for (const Use &a : I.args())
    if (isWord(a->getType()) && !isa<ConstantInt>(a.get()) && !isa<UndefValue>(a.get()))
      words.emplace_back(a.getOperandNo(), a.get());
  if (words.empty())
    return;
  FunctionType *fty = I.getFunctionType();
  int nfixed = fty->isVarArg() ? (int)fty->getNumParams() : -1;
  pending.push_back([this, &I, info, callee, words, nfixed] {
    std::string name = fn->name + ":%" + (I.getType()->isVoidTy() ? std::string("call") : localName(&I));
    int fp = -1;
    if (info == nullptr)
      fp = isa<GlobalValue>(callee) ? globalNode(cast<GlobalValue>(callee)) : nodeOf(callee);
    for (auto &[k, x] : words) {
      IntSources s = isLocal(x) ? intSources(x) : constIntSources(x);
      if (s.nodes.empty())
        continue;
      int slot;
      if (info != nullptr) {
        int np = (int)info->params.size();
        if ((int)k >= np && !info->vararg)
          continue;
        slot = (int)k < np ? info->obj + 2 + (int)k : info->vaSlot();
        intInto(slot, s, name + ".intarg.any");
      } else if (fp >= 0) {
        int t = B.node(name + ".icall.intarg" + std::to_string(k));
        B.callGep(t, fp, 2 + (nfixed < 0 || (int)k < nfixed ? (int)k : nfixed));
        int v = B.node(name + ".icall.intval" + std::to_string(k));
        intInto(v, s, name + ".intarg.any");
        B.store(t, v);
      }
    }
  });
}

// A pointer-sized integer stored to ``ptr``,
// stored as the pointers it traces back to
void Extractor::storeInts(const Value *ptr, const Value *v, const std::string &name, bool pointerSized) {
  if (!pointerSized && !isa<LoadInst>(v))  // _store_int: an i8 only when a load is stored as it is
    return;
  IntSources s = isLocal(v) ? intSources(v) : constIntSources(v);
  if (s.nodes.empty())
    return;
  int dst = nodeOf(ptr);
  if (dst < 0)
    return;
  int slots = v->getType()->isIntegerTy() ? 1 : T.nSlots(v->getType());  // an aggregate: each of its slots
  for (int k = 0; k < slots; ++k) {
    int at = B.offset(dst, k, name + ".slot" + std::to_string(k));
    for (int n : s.nodes)
      B.store(at, s.arith ? smearOf(n, name) : n);
  }
}

// (offset, smear) of getelementptr ty, base, idx: smear when the result may be any
// slot at or after base + offset
std::pair<long, bool> Extractor::gepPlan(Type *ty, ArrayRef<IntKey> idx) {
  if (auto *it = dyn_cast<IntegerType>(ty)) {
    if (idx.size() <= 1) {
      if (idx.empty() || idx[0].isZero())
        return {0, false};
      return {0, it->getBitWidth() == 8 || it->getBitWidth() == 1};
    }
  }
  long off = 0;
  Type *t = ty;
  for (size_t j = 1; j < idx.size(); ++j) {
    if (Types::isStruct(t)) {
      if (!idx[j].isConst)
        return {off, true};
      auto *s = cast<StructType>(t);
      if (idx[j].big || idx[j].k < 0 || idx[j].k >= (long)s->getNumElements())
        unsupported("struct index out of range");
      off += T.fieldPrefix(t)[idx[j].k];
      t = s->getElementType((unsigned)idx[j].k);
    } else if (Types::isSeq(t)) {
      t = Types::elem(t);
    } else {
      break;
    }
  }
  return {off, false};
}

// The most slots of any of ``tables`` (slot byte offsets, longest first) within nbytes
// consecutive bytes; at least 1, at most nbytes (window and named_window)
static int mostSlotsIn(const std::vector<std::vector<long>> &tables, long nbytes) {
  long w = 1;
  long reach = std::min(nbytes, 1L << 48);  // past every offset either way, and no overflow
  for (auto &offs : tables) {
    if ((long)offs.size() <= w)
      break;
    for (size_t j = 0; j < offs.size(); ++j) {
      long k = std::lower_bound(offs.begin(), offs.end(), offs[j] + reach) - offs.begin() - (long)j;
      w = std::max(w, k);
    }
  }
  return (int)std::max(1L, std::min(w, nbytes));
}

// ModuleExtractor.window: most slots of any named struct or global type inside nbytes bytes
int Extractor::window(long nbytes) {
  if (nbytes <= 0)
    return maxSlots;
  auto hit = windowMemo.find(nbytes);
  if (hit != windowMemo.end())
    return hit->second;
  if (!offsetTablesBuilt) {
    std::vector<Type *> tys;
    for (StructType *s : namedTypes)
      if (!s->isOpaque())
        tys.push_back(s);
    tys.insert(tys.end(), globalTypes.begin(), globalTypes.end());
    std::vector<std::vector<long>> tables;
    for (Type *t : tys) {
      std::vector<long> offs;
      T.slotOffsets(t, 0, offs);
      if (offs.size() > 1 && std::find(tables.begin(), tables.end(), offs) == tables.end())
        tables.push_back(std::move(offs));
    }
    std::stable_sort(tables.begin(), tables.end(), [](auto &a, auto &b) { return a.size() > b.size(); });
    offsetTables = std::move(tables);
    offsetTablesBuilt = true;
  }
  return windowMemo[nbytes] = mostSlotsIn(offsetTables, nbytes);
}

// The library-owned object of a callee (getenv's string, getpwnam's struct): a C record
// of externals.STATIC_RECORDS takes the program's own struct's slots
int Extractor::staticObj(const std::string &key) {
  auto it = staticObjs.find(key);
  if (it != staticObjs.end())
    return it->second;
  int o = selfLinked("*" + key + "()", 0, recordSlots(key));
  return staticObjs[key] = o;
}

// ModuleExtractor._record_slots
std::optional<int> Extractor::recordSlots(const std::string &callee) {
  auto rec = models.staticRecords.find(callee);
  if (rec == models.staticRecords.end())
    return std::nullopt;
  if (!rec->second)
    return 1;
  auto floor = models.recordSlots.find(*rec->second);
  int slots = floor == models.recordSlots.end() ? 1 : floor->second;
  std::string name = "struct." + *rec->second;
  for (StructType *s : namedTypes) {
    if (s->isOpaque())
      continue;
    std::string t = printedName(s->getName());
    bool numbered = false;
    if (StringRef(t).starts_with(name + ".")) {
      StringRef tail = StringRef(t).drop_front(name.size() + 1);
      numbered = !tail.empty() && all_of(tail, isDigit);
    }
    if (t == name || numbered)
      slots = std::max(slots, T.nSlots(s));
  }
  return slots;
}

// ModuleExtractor.named_window
int Extractor::namedWindow(long nbytes) {
  if (nbytes <= 0)
    return namedMaxSlots;
  auto hit = namedWindowMemo.find(nbytes);
  if (hit != namedWindowMemo.end())
    return hit->second;
  return namedWindowMemo[nbytes] = mostSlotsIn(namedOffsetTables, nbytes);
}

// ModuleExtractor.object_layout: {slots, reach} (count < 0: unknown; reach 0: every slot)
std::pair<int, int> Extractor::objectLayout(Type *ty, long count) {
  int n = T.nSlots(ty);
  if (count == 1 && !T.hasArray(ty))
    return {n, 0};
  long nbytes = -1;
  if (count >= 0) {
    __int128 total = (__int128)T.sizeAlign(ty).first * count;
    nbytes = total > (1L << 48) ? (1L << 48) : (long)total;
  }
  int k = namedWindow(nbytes);
  return k <= n ? std::pair<int, int>{n, 0} : std::pair<int, int>{k, n};
}

// A call through fp: store each actual into its slot, load the return slot
void Extractor::indirectCall(int fp, const std::vector<int> &args, int result, int nfixed,
                             const std::string &name) {
  for (size_t k = 0; k < args.size(); ++k) {
    if (args[k] < 0)
      continue;
    int slot = 2 + (nfixed < 0 || (int)k < nfixed ? (int)k : nfixed);
    int t = B.node(name + ".arg" + std::to_string(k));
    B.callGep(t, fp, slot);
    B.store(t, args[k]);
  }
  if (result >= 0) {
    int t = B.node(name + ".ret");
    B.callGep(t, fp, 1);
    B.load(result, t);
  }
}

// ---------------------------------------------------------------- passes
void Extractor::declare() {
  unsigned unnamed = 0;  // numbered as SlotTracker::processModule numbers them
  for (GlobalVariable &g : M.globals())
    if (!g.hasName())
      globalSlots[&g] = unnamed++;
  for (GlobalAlias &a : M.aliases())
    if (!a.hasName())
      globalSlots[&a] = unnamed++;
  for (GlobalIFunc &i : M.ifuncs())
    if (!i.hasName())
      globalSlots[&i] = unnamed++;
  for (Function &f : M)
    if (!f.hasName())
      globalSlots[&f] = unnamed++;
  TypeFinder finder;
  finder.run(M, false);
  unsigned numbered = 0;  // and TypePrinting::incorporateTypes its unnamed struct types
  for (StructType *s : finder) {
    if (s->isLiteral())
      continue;  // the printer names only identified structs
    if (!s->hasName())
      T.numbers[s] = numbered++;
    namedTypes.push_back(s);
    if (!s->isOpaque())
      maxSlots = std::max(maxSlots, T.nSlots(s));
  }
  namedMaxSlots = maxSlots;
  for (StructType *s : namedTypes) {
    if (s->isOpaque())
      continue;
    std::vector<long> offs;
    T.slotOffsets(s, 0, offs);
    if (offs.size() > 1 && std::find(namedOffsetTables.begin(), namedOffsetTables.end(), offs) == namedOffsetTables.end())
      namedOffsetTables.push_back(std::move(offs));
  }
  std::stable_sort(namedOffsetTables.begin(), namedOffsetTables.end(),
                   [](auto &a, auto &b) { return a.size() > b.size(); });
  for (GlobalVariable &g : M.globals()) {
    std::string name = globalName(&g);
    MDNode *dbg = g.getMetadata(LLVMContext::MD_dbg);
    int l = dbg ? mdLocation(dbg) : 0;
    int obj;
    if (foldConstants && plainConstant(g)) {
      obj = constantData();
    } else {
      auto [slots, reach] = g.isConstant() ? std::pair<int, int>{T.nSlots(g.getValueType()), 0}
                                           : objectLayout(g.getValueType(), 1);
      obj = declaredObject("*@" + name, slots, reach, l);
    }
    int addr = B.node("@" + name, VALUE, l);
    B.addr(addr, obj);
    globalObj[&g] = obj;
    globalVal[&g] = addr;
    globalTypes.push_back(g.getValueType());
    ++globalCount;
  }
  for (Function &f : M) {
    FuncInfo fi{&f, globalName(&f), {}, f.isVarArg(), !f.isDeclaration()};
    for (Argument &a : f.args())
      fi.params.push_back(a.getType());
    // a declaration's attachment is not its definition's place: no location
    MDNode *dbg = fi.defined ? f.getMetadata(LLVMContext::MD_dbg) : nullptr;
    fi.loc = dbg ? mdLocation(dbg) : 0;
    funcIndex[&f] = (int)funcList.size();
    funcList.push_back(std::move(fi));
  }
  for (FuncInfo &fi : funcList) {
    std::vector<std::string> names{"@" + fi.name, "@" + fi.name + "#ret"};
    for (size_t k = 0; k < fi.params.size(); ++k)
      names.push_back("@" + fi.name + "#arg" + std::to_string(k));
    if (fi.vararg)
      names.push_back("@" + fi.name + "#va");
    fi.obj = B.obj(names[0], (int)names.size(), FUNCTION, fi.loc, &names);
    maxParamSlots = std::max(maxParamSlots, (int)names.size() - 2);
    for (size_t j = 1; j < names.size(); ++j)  // reached from @f only: no offset applies from a slot
      B.size[fi.obj + j] = 1;
    ++(fi.defined ? definedCount : declaredCount);
  }
}

// The literal struct types geps index ({ ptr, ptr }) lay out memory too: they
// bound heap objects' and copies' slots with the named ones.
void Extractor::prescan() {
  DenseSet<Type *> seen;
  for (Function &f : M)
    for (BasicBlock &bb : f)
      for (Instruction &I : bb)
        if (auto *call = dyn_cast<CallBase>(&I))
          maxCallArgs = std::max(maxCallArgs, (int)call->arg_size());
        else if (auto *gep = dyn_cast<GetElementPtrInst>(&I)) {
          auto *st = dyn_cast<StructType>(gep->getSourceElementType());
          if (st != nullptr && st->isLiteral() && seen.insert(st).second) {
            globalTypes.push_back(st);
            maxSlots = std::max(maxSlots, T.nSlots(st));
          }
        }
}

// Initializer v of type ty placed at obj + slot. A pointer-sized integer holds the addresses
// it is made of (i64 ptrtoint (ptr @x to i64)), as one stored by the program would (storeInts).
void Extractor::initGlobal(Type *ty, const Constant *v, int obj, int slot) {
  if (isa<ConstantData>(v) || isa<BlockAddress>(v) || !(T.hasPtr(ty) || isWord(ty)))
    return;  // numbers, strings, null, zeroes, undef: no address
  if (ty->isIntegerTy()) {
    if (isWord(ty))
      intInto(obj + slot, constIntSources(v), "cexpr.int");
  } else if (ty->isPointerTy()) {
    v = cast<Constant>(unwrapped(v));
    if (auto *gv = dyn_cast<GlobalVariable>(v)) {
      B.addr(obj + slot, globalObj.lookup(gv));
    } else if (auto *f = dyn_cast<Function>(v)) {
      FuncInfo &fi = funcList[funcIndex.lookup(f)];
      fi.taken = true;
      B.addr(obj + slot, fi.obj);
    } else {
      copyFrom(obj + slot, v);
    }
  } else if (isa<ConstantAggregate>(v)) {
    if (Types::isStruct(ty)) {
      auto &p = T.fieldPrefix(ty);
      unsigned n = std::min((unsigned)p.size(), v->getNumOperands());
      for (unsigned k = 0; k < n; ++k)
        initGlobal(v->getOperand(k)->getType(), v->getAggregateElement(k), obj, slot + p[k]);
    } else {
      for (const Use &u : v->operands())
        initGlobal(u->getType(), cast<Constant>(u.get()), obj, slot);
    }
  } else {
    int node = nodeOf(v);
    if (node >= 0) {
      std::vector<int> slots;
      T.ptrSlots(ty, 0, slots);
      for (int k : slots)
        B.copy(obj + slot + k, node);
    }
  }
}

void Extractor::run() {
  declare();
  prescan();
  for (GlobalVariable &g : M.globals())
    if (g.hasInitializer())
      initGlobal(g.getValueType(), g.getInitializer(), globalObj[&g], 0);
  for (GlobalVariable &g : M.globals())
    if (!g.hasInitializer())
      libraryGlobal(g);
  uint64_t total = 0, done = 0, next = 0;
  if (progress != nullptr)
    for (FuncInfo &fi : funcList)
      if (fi.defined)
        total += fi.f->getInstructionCount();
  for (FuncInfo &fi : funcList)
    if (fi.defined) {
      runFunction(fi);
      if (recordSites)
        sitesOf(fi);
      if (progress == nullptr)
        continue;
      done += fi.f->getInstructionCount();
      if (done >= next || done == total) {  // about a hundred lines in all
        *progress << "progress " << done << " " << total << "\n";
        progress->flush();
        next = done + total / 100;
      }
    }
  fn = nullptr;
  cur = nullptr;
  modelBodies();
}

// ModuleExtractor.library_global
void Extractor::libraryGlobal(GlobalVariable &g) {
  std::vector<int> ptrs;
  T.ptrSlots(g.getValueType(), 0, ptrs);
  if (ptrs.empty())
    return;
  std::string name = globalName(&g);
  auto text = models.globalText.find(name);  // tzname: the library's zone names
  int o = text != models.globalText.end() ? staticTextObj(text->second)
                                          : selfLinked("*@" + name + ".lib", 0, recordSlots(name).value_or(1));
  for (int k : ptrs)
    B.addr(globalObj[&g] + k, o);
}

// ModuleExtractor.model_bodies
void Extractor::modelBodies() {
  for (FuncInfo &fi : funcList) {
    if (fi.defined || !fi.taken ||
        std::find(models.aliasChecks.begin(), models.aliasChecks.end(), fi.name) != models.aliasChecks.end())
      continue;
    int F = fi.obj;
    std::vector<int> args;
    for (size_t k = 0; k < fi.params.size(); ++k)
      args.push_back(T.hasPtr(fi.params[k]) ? F + 2 + (int)k : -1);
    if (fi.vararg)
      args.insert(args.end(), 8, fi.vaSlot());
    int result = fi.f->getReturnType()->isPointerTy() ? F + 1 : -1;
    std::string name = "@" + fi.name + ".model";
    const std::vector<Effect> *model = models.modelFor(fi.name);
    if (model == nullptr) {
      // called through a pointer with what the caller hands it: reported as a direct call
      // would be, where a pointer can go in or out
      if (result >= 0 || std::any_of(args.begin(), args.end(), [](int a) { return a >= 0; }))
        count(unmodelled, unmodelledIndex, fi.name);
      unmodelledCall(fi.name, args, result, name, {});
    } else
      applyModel(fi.name, *model, args, [](size_t) { return std::optional<long>(); }, result, name, 0, false);
  }
}

// ModuleExtractor.unmodelled
void Extractor::unmodelledCall(const std::string &callee, const std::vector<int> &args, int result,
                               const std::string &name, const std::vector<const FuncInfo *> &callbacks) {
  std::unordered_set<int> handed;  // the functions handed to it: called back, not written into
  for (const FuncInfo *target : callbacks) {
    auto it = funcAddr.find(target->f);
    if (it != funcAddr.end())
      handed.insert(it->second);
  }
  int given = -1, memory = -1;
  for (int a : args)
    if (a >= 0) {
      if (given < 0)
        given = B.node(name + ".given");
      B.copy(given, a);
      if (handed.count(a) == 0) {
        if (memory < 0)
          memory = B.node(name + ".given.memory");
        B.copy(memory, a);
      }
    }
  if (given < 0 && result < 0)
    return;
  // what it may return, and write into every slot of the memory it is given (an out
  // parameter: getifaddrs' list, BIO_get_mem_data's buffer): an object of its own, or
  // anywhere into what it was given
  int made = result >= 0 ? result : B.node(name + ".unknown");
  B.addr(made, unknownObj(callee));
  if (given >= 0)
    B.copy(made, B.smear(given, name + ".returned"));
  if (memory >= 0)
    B.store(B.smear(memory, name + ".out"), made);
  if (given >= 0)
    for (const FuncInfo *target : callbacks)
      for (size_t k = 0; k < target->params.size(); ++k)
        B.copy(target->obj + 2 + (int)k, given);
  if (given >= 0)
    B.copy(made, callReached(given, name));  // what the functions it calls back return
}

// The function that stands for every symbol dlsym finds in a library (code loaded at run time):
// a function object with a parameter cell for every argument of any call (a call through the
// pointer loses none), whose body is the unmodelled default: what it is given may come back
// from it and be written into what it is given, and functions reachable from it are called back.
// Made on first use (after every function object and the prescan).
int Extractor::loadedCodeObj() {
  if (loadedFn >= 0)
    return loadedFn;
  const std::string fname = "dlsym.loaded";
  std::vector<std::string> names{"@" + fname, "@" + fname + "#ret"};
  const int cells = std::max(maxParamSlots, maxCallArgs);
  for (int k = 0; k < cells; ++k)
    names.push_back("@" + fname + "#arg" + std::to_string(k));
  int F = loadedFn = B.obj(names[0], (int)names.size(), FUNCTION, 0, &names);
  for (size_t j = 1; j < names.size(); ++j)
    B.size[F + j] = 1;
  std::vector<int> args;
  for (int k = 0; k < cells; ++k)
    args.push_back(F + 2 + k);
  unmodelledCall(fname, args, F + 1, "@" + fname + ".model", {});
  return F;
}

// The functions that memory reachable from `from` holds (a table of callbacks, an object's
// virtual table: std::thread's state) may be called, with anything reachable from `from` as
// every argument: reach = from, reach = *(any slot of reach's objects); every parameter cell of
// every function in reach receives reach (call geps, so only functions' cells), and what they
// return is reachable too. Returns the node of what they return.
int Extractor::callReached(int from, const std::string &name) {
  int reach = B.node(name + ".reach");
  B.copy(reach, from);
  B.load(reach, B.smear(reach, name + ".reach.slots"));
  for (int k = 0; k < maxParamSlots; ++k) {
    int cell = B.node(name + ".reach.param" + std::to_string(k));
    B.callGep(cell, reach, 2 + k);
    B.store(cell, reach);
  }
  int retCell = B.node(name + ".reach.ret");
  B.callGep(retCell, reach, 1);
  int returned = B.node(name + ".reach.returned");
  B.load(returned, retCell);
  B.copy(reach, returned);
  return returned;
}

void Extractor::runFunction(FuncInfo &fi) {
  fn = &fi;
  cur = nullptr;
  locals.clear();
  allocaObj.clear();
  allocaType.clear();
  intMemo.clear();
  pending.clear();
  lastHandled = nullptr;
  typeHeapSites(*fi.f);
  slots.clear();  // numbered as SlotTracker::processFunction numbers them
  int next = 0;
  for (Argument &a : fi.f->args())
    if (!a.hasName())
      slots[&a] = next++;
  for (BasicBlock &bb : *fi.f) {
    if (!bb.hasName())
      slots[&bb] = next++;
    for (Instruction &I : bb)
      if (!I.getType()->isVoidTy() && !I.hasName())
        slots[&I] = next++;
  }
  int F = fi.obj;
  unsigned k = 0;
  for (Argument &a : fi.f->args()) {
    if (T.hasPtr(a.getType()))
      B.copy(local(&a), F + 2 + k);
    ++k;
  }
  if (fi.name == "main" && fi.params.size() >= 2) {
    int strings = B.obj("*main:argv[]", 1, OBJECT, 0);
    int argv = B.obj("*main:argv", 1, OBJECT, 0);
    B.addr(argv, strings);
    B.addr(F + 3, argv);
    if (fi.params.size() >= 3)
      B.addr(F + 4, argv);
  }
  for (BasicBlock &bb : *fi.f)
    for (Instruction &I : bb) {
      // "#dbg_declare(ptr %x, !N, ...)" printed before I: the variable's line for x's object
      for (DbgVariableRecord &rec : filterDbgVars(I.getDbgRecordRange())) {
        if (!rec.isDbgDeclare() || rec.hasArgList())
          continue;
        Value *v = rec.getVariableLocationOp(0);
        if (v == nullptr || !isLocal(v))
          continue;
        auto it = allocaObj.find(v);
        if (it != allocaObj.end() && rec.getRawVariable() != nullptr)
          B.loc[it->second] = mdLocation(rec.getRawVariable());
      }
      cur = &I;
      instruction(I);
    }
  cur = lastHandled;
  for (auto &later : pending)
    later();
}

// Whether a type prints as one word without ",{<[" (loadStoreToken) or without
// ",{<" (gepToken): loads, stores and geps of such types (with plain operands)
// make their nodes in the order the first, text-reading rules did (see the
// header), so that node ids stay what they were.
bool Extractor::loadStoreToken(Type *t) {
  auto [it, fresh] = tokenMemo.try_emplace(t, 0);
  if (fresh) {
    const std::string &x = T.text(t);
    it->second = (x.find_first_of(" ,{<[") == std::string::npos ? 1 : 0) |
                 (x.find_first_of(",{<") == std::string::npos ? 2 : 0);
  }
  return it->second & 1;
}

bool Extractor::gepToken(Type *t) {
  loadStoreToken(t);
  return tokenMemo[t] & 2;
}

void Extractor::instruction(const Instruction &I) {
  ++instructions;
  const char *op = I.getOpcodeName();
  if (opcodeCounts[I.getOpcode()]++ == 0)
    opcodeOrder.push_back(I.getOpcode());
  const Instruction *before = lastHandled;
  lastHandled = &I;
  switch (I.getOpcode()) {
  case Instruction::Alloca: {
    auto &A = cast<AllocaInst>(I);
    Type *ty = A.getAllocatedType();
    long count = 1;  // "T, i64 N": N values of T (-1: not a constant)
    if (A.isArrayAllocation()) {
      auto *c = dyn_cast<ConstantInt>(A.getArraySize());
      count = c == nullptr ? -1 : intKey(c).k;
      if (c != nullptr && count < 0)
        count = 0;  // a negative count: as unknown as none
    }
    auto [slots, reach] = objectLayout(ty, count);
    int obj = declaredObject("*" + fn->name + ":%" + localName(&I), slots, reach, curLoc());
    allocaObj[&I] = obj;
    allocaType[&I] = ty;
    B.addr(local(&I), obj);
    return;
  }
  case Instruction::Load: return iLoad(cast<LoadInst>(I));
  case Instruction::Store: return iStore(cast<StoreInst>(I));
  case Instruction::GetElementPtr: return iGep(cast<GetElementPtrInst>(I));
  case Instruction::BitCast: case Instruction::AddrSpaceCast: case Instruction::Freeze:
  case Instruction::ExtractValue: {
    if (T.hasPtr(I.getOperand(0)->getType())) {
      int src = nodeOf(I.getOperand(0));
      if (src >= 0)
        B.copy(local(&I), src);
    }
    return;
  }
  case Instruction::PHI: {
    auto &P = cast<PHINode>(I);
    if (!T.hasPtr(P.getType()))
      return;
    int dst = local(&I);
    for (const Value *v : P.incoming_values())
      copyFrom(dst, v);
    return;
  }
  case Instruction::Select: {
    if (!T.hasPtr(I.getOperand(1)->getType()))
      return;
    int dst = local(&I);
    for (unsigned k = 1; k < 3; ++k)
      copyFrom(dst, I.getOperand(k));
    return;
  }
  case Instruction::InsertValue: {
    if (!T.hasPtr(I.getOperand(0)->getType()))
      return;
    int dst = local(&I);
    for (unsigned k = 0; k < 2; ++k) {
      const Value *v = I.getOperand(k);
      if (k == 1 && !T.hasPtr(v->getType())) {  // an integer into an aggregate of pointers
        if (isWord(v->getType()) && isLocal(v))
          pending.push_back([this, v, dst] { intInto(dst, intSources(v), fn->name + ":%" + localName(v) + ".int.any"); });
        continue;
      }
      copyFrom(dst, v);
    }
    return;
  }
  case Instruction::ExtractElement: case Instruction::InsertElement: case Instruction::ShuffleVector: {
    if (!T.hasPtr(I.getOperand(0)->getType()))
      return;
    int dst = local(&I);
    for (const Use &u : I.operands())
      if (T.hasPtr(u->getType()))
        copyFrom(dst, u.get());
    return;
  }
  case Instruction::PtrToInt:
    return;  // traced where the integer is used (intSources)
  case Instruction::Ret: {
    if (I.getNumOperands() == 0)
      return;
    const Value *v = I.getOperand(0);
    if (T.hasPtr(v->getType())) {
      copyFrom(fn->obj + 1, v);
    } else if (isWord(v->getType()) && !isa<ConstantInt>(v)) {  // an integer result (intSources)
      std::string name = fn->name + ":ret.int.any";
      pending.push_back([this, v, name] { intInto(fn->obj + 1, isLocal(v) ? intSources(v) : constIntSources(v), name); });
    }
    return;
  }
  case Instruction::AtomicCmpXchg: {
    auto &X = cast<AtomicCmpXchgInst>(I);
    Type *ty = X.getNewValOperand()->getType();
    if (ty->isIntegerTy(64)) {
      intExchange(X.getPointerOperand(), X.getNewValOperand());
      return;
    }
    swap(I, X.getPointerOperand(), X.getNewValOperand());
    return;
  }
  case Instruction::AtomicRMW: {
    auto &X = cast<AtomicRMWInst>(I);
    Type *ty = X.getValOperand()->getType();
    if (ty->isIntegerTy(64) && X.getOperation() == AtomicRMWInst::Xchg) {
      intExchange(X.getPointerOperand(), X.getValOperand());
      return;
    }
    swap(I, X.getPointerOperand(), X.getValOperand());
    return;
  }
  case Instruction::VAArg: {
    int ap = nodeOf(I.getOperand(0));
    if (ap < 0 || !T.hasPtr(I.getType()))
      return;
    std::string name = fn->name + ":%" + localName(&I);
    int area = B.node(name + ".va_area");
    B.load(area, B.smear(ap, name + ".va_list"));
    int dst = local(&I);
    B.load(dst, B.smear(area, name + ".va_args"));
    return;
  }
  case Instruction::LandingPad: {
    int dst = local(&I);
    B.copy(dst, exception());
    return;
  }
  case Instruction::Resume: {
    int src = nodeOf(I.getOperand(0));   // before exception(): node ids follow this order
    if (src >= 0)
      B.copy(exception(), src);
    return;
  }
  case Instruction::Call: case Instruction::Invoke: case Instruction::CallBr:
    return iCall(cast<CallBase>(I));
  case Instruction::IntToPtr: {
    const Value *v = I.getOperand(0);
    int dst = local(&I);
    std::string name = fn->name + ":%" + localName(&I) + ".int";
    pending.push_back([this, v, dst, name] { intToPtr(dst, isLocal(v) ? intSources(v) : constIntSources(v), name + ".any"); });
    return;
  }
  default:
    break;
  }
  lastHandled = before;
  if (I.isBinaryOp() || I.isUnaryOp() || isa<CmpInst>(I) || I.isCast() || I.isTerminator() || isa<FenceInst>(I) ||
      isa<CatchPadInst>(I) || isa<CleanupPadInst>(I))
    return;  // moves no pointer
  count(unknown, unknownIndex, op);  // listed in the statistics, never dropped silently
}

// A load: with a one-word type and a plain address the result's node comes
// before the address's, else after (loadStoreToken()).
void Extractor::iLoad(const LoadInst &I) {
  Type *ty = I.getType();
  const Value *p = I.getPointerOperand();
  if (loadStoreToken(ty) && isVal(p) && plainPtr(p)) {
    if (ty->isPointerTy()) {
      int dst = local(&I);
      B.load(dst, nodeOf(p));
      return;
    }
    if (!T.hasPtr(ty))
      return;
  }
  if (!T.hasPtr(ty))
    return;
  int src = nodeOf(p);
  if (src < 0)
    return;
  int dst = local(&I);
  if (ty->isPointerTy()) {
    B.load(dst, src);
    return;
  }
  std::vector<int> slots;
  T.ptrSlots(ty, 0, slots);
  std::string name = fn->name + ":%" + localName(&I);
  Type *known = knownType(p);
  for (int k : slots) {
    auto [lo, hi] = viewSlots(ty, k, known);
    for (long j = lo; j <= hi; ++j)
      B.load(dst, B.offset(src, j, name + ".slot" + std::to_string(j)));
  }
}

// A store: with one-word operands the address's node comes first, else the value's
void Extractor::iStore(const StoreInst &I) {
  const Value *v = I.getValueOperand(), *p = I.getPointerOperand();
  Type *ty = v->getType();
  bool plainValue = isVal(v) || isa<ConstantPointerNull>(v) || isa<UndefValue>(v) || isa<ConstantInt>(v) ||
                    isa<ConstantAggregateZero>(v);
  if (loadStoreToken(ty) && plainValue && isVal(p) && plainPtr(p)) {
    if (ty->isPointerTy()) {
      if (isVal(v)) {
        int dst = nodeOf(p);
        B.store(dst, nodeOf(v));
      }
      return;
    }
    if (!T.hasPtr(ty)) {
      if (storesInts(v))
        storeIntLater(p, v);
      return;
    }
  }
  if (!T.hasPtr(ty)) {
    if (storesInts(v))
      storeIntLater(p, v);
    return;
  }
  int val = nodeOf(v);
  if (val < 0)
    return;
  int dst = nodeOf(p);
  if (dst < 0)
    return;
  if (ty->isPointerTy()) {
    B.store(dst, val);
    return;
  }
  std::vector<int> slots;
  T.ptrSlots(ty, 0, slots);
  Type *known = knownType(p);
  for (int k : slots) {
    auto [lo, hi] = viewSlots(ty, k, known);
    for (long j = lo; j <= hi; ++j)
      B.store(B.offset(dst, j, fn->name + ".store.slot" + std::to_string(j)), val);
  }
}

// A getelementptr
// Heap objects typed by their use. SVF's ObjTypeInference infers the type of an allocation from
// the geps, loads and stores applied to its result; here that is kept sound by following every
// use. The pointers derived from an allocation call's result in its function (through casts,
// phi, select, freeze and geps) are its closure; when none of them leaves the closure (is stored
// as a value, passed to a call other than free or an alias assertion, returned, turned into an
// integer, or used in any other way), every constraint that reaches the object comes from the
// closure, and the object needs only the slots those constraints land on.
//
// Each closure pointer is at one slot, or at "a slot at or after s" (after a smear: a positive or
// variable byte offset, a variable struct index), which is what the rule's smear models whatever
// the object's slot count. A pointer the rules cannot place that way (a negative byte offset, a
// variable one from inside the object, a pointer at two slots at once) would lose targets, so it
// collapses the object instead (Pearce, Kelly and Hankin's field-insensitive objects, SVF's
// collapse on variant geps): one node, every gep of a closure pointer a copy, which needs every
// closure pointer to point to this object alone (phi and select take nothing but closure
// pointers and null) and every access to be of one slot. Anything else: not known (the default
// layout). The one struct type of the geps on the result itself, if there is one, places
// constant byte offsets from it (iGep), as an alloca's type does.
std::optional<Extractor::HeapUse> Extractor::useLayout(const CallBase &site, std::vector<const Value *> &closure) {
  constexpr size_t LIMIT = 4096;  // closure pointers followed at most
  struct At {
    long slot;
    bool after;  // "some slot at or after slot"
  };
  Type *type = nullptr;  // the struct type of the geps on the result (nullptr: none, or several)
  bool several = false;
  for (const User *u : site.users())
    if (auto *g = dyn_cast<GetElementPtrInst>(u))
      if (g->getPointerOperand() == &site && Types::isStruct(g->getSourceElementType())) {
        several |= type != nullptr && type != g->getSourceElementType();
        type = g->getSourceElementType();
      }
  if (several)
    type = nullptr;
  DenseMap<const Value *, At> at;
  SmallVector<const Value *, 16> work;
  long need = 1;
  bool unplaced = false, wide = false;
  auto reach = [&](const Value *v, At a) {
    auto [it, fresh] = at.try_emplace(v, a);
    if (fresh) {
      work.push_back(v);
      closure.push_back(v);
      if (!a.after)
        need = std::max(need, a.slot + 1);
    } else if (it->second.slot != a.slot || it->second.after != a.after) {
      unplaced = true;
    }
  };
  reach(&site, {0, false});
  while (!work.empty()) {
    if (closure.size() > LIMIT)
      return std::nullopt;
    const Value *v = work.pop_back_val();
    At a = at.lookup(v);
    for (const Use &use : v->uses()) {
      const User *u = use.getUser();
      auto access = [&](Type *t) {
        int n = T.nSlots(t);
        wide |= n > 1;
        if (!a.after)
          need = std::max(need, a.slot + n);
      };
      if (auto *li = dyn_cast<LoadInst>(u)) {
        access(li->getType());
      } else if (auto *st = dyn_cast<StoreInst>(u)) {
        if (use.getOperandNo() != StoreInst::getPointerOperandIndex())
          return std::nullopt;  // the pointer itself is stored: it leaves the closure
        access(st->getValueOperand()->getType());
      } else if (isa<CastInst>(u) || isa<FreezeInst>(u) || isa<PHINode>(u)) {
        if (isa<PtrToIntInst>(u) || !u->getType()->isPointerTy())
          return std::nullopt;
        reach(u, a);
      } else if (auto *sel = dyn_cast<SelectInst>(u)) {
        if (use.getOperandNo() == 0)
          return std::nullopt;
        reach(u, a);
      } else if (isa<ICmpInst>(u)) {
        continue;
      } else if (auto *g = dyn_cast<GetElementPtrInst>(u)) {
        if (use.getOperandNo() != 0 || !g->getType()->isPointerTy())
          return std::nullopt;
        Type *st = g->getSourceElementType();
        SmallVector<IntKey, 4> idx;
        for (const Use &x : g->indices())
          idx.push_back(intKey(x.get()));
        auto [off, sm] = gepPlan(st, idx);
        if (sm && st->isIntegerTy(8)) {  // a byte offset
          bool constant = idx.size() == 1 && idx[0].isConst;
          if (v == &site && type != nullptr && constant && byteSlot(type, idx[0]) >= 0)
            reach(u, {byteSlot(type, idx[0]), false});  // placed by the type, as iGep does
          else if (constant ? !idx[0].big && idx[0].k >= 0 : a.slot == 0)
            reach(u, {a.slot, true});  // forward of the pointer (or anywhere from the start)
          else
            unplaced = true, reach(u, {a.slot, true});
        } else {
          reach(u, {a.slot + off, a.after || sm});
        }
      } else if (auto *call = dyn_cast<CallBase>(u)) {
        const Value *callee = unwrapped(call->getCalledOperand());
        if (!call->isArgOperand(&use) || !isa<Function>(callee))
          return std::nullopt;
        const Function *f = cast<Function>(callee);
        std::string name = f->hasName() ? f->getName().str() : "";
        bool inert = name == "free" || f->getIntrinsicID() == Intrinsic::lifetime_start ||
                     f->getIntrinsicID() == Intrinsic::lifetime_end || !aliasCheckName(name).empty();
        if (!inert || !f->isDeclaration())
          return std::nullopt;
      } else {
        return std::nullopt;  // returned, or used in a way not followed
      }
    }
  }
  if (!unplaced)
    return HeapUse{(int)std::min<long>(need, INT32_MAX), type, false};
  if (wide)
    return std::nullopt;
  for (const Value *v : closure) {  // collapsing needs pointers to this object alone
    auto inClosure = [&](const Value *x) { return at.count(x) || isa<ConstantPointerNull>(x) || isa<UndefValue>(x); };
    if (auto *phi = dyn_cast<PHINode>(v)) {
      if (!all_of(phi->incoming_values(), [&](const Use &x) { return inClosure(x.get()); }))
        return std::nullopt;
    } else if (auto *sel = dyn_cast<SelectInst>(v)) {
      if (!inClosure(sel->getTrueValue()) || !inClosure(sel->getFalseValue()))
        return std::nullopt;
    }
  }
  return HeapUse{1, nullptr, true};
}

// heapUse for the allocation calls of f (calls of an external whose model is ("alloc",))
void Extractor::typeHeapSites(const Function &f) {
  for (const BasicBlock &bb : f)
    for (const Instruction &I : bb) {
      auto *call = dyn_cast<CallBase>(&I);
      if (call == nullptr || !I.getType()->isPointerTy())
        continue;
      auto *callee = dyn_cast<Function>(unwrapped(call->getCalledOperand()));
      if (callee == nullptr || !callee->isDeclaration())
        continue;
      const std::vector<Effect> *model = models.modelFor(globalName(callee));
      // a model that only allocates: one that also writes the object (realloc's copy) or
      // returns something else (realpath's buffer) makes constraints the closure does not show
      if (model == nullptr || model->size() != 1 || (*model)[0].size() != 1 || (*model)[0][0].s != "alloc")
        continue;
      std::vector<const Value *> closure;
      if (auto used = useLayout(*call, closure)) {
        heapUse[call] = *used;
        if (used->collapsed)
          collapsedPtrs.insert(closure.begin(), closure.end());
      }
    }
}

void Extractor::iGep(const GetElementPtrInst &I) {
  Type *st = I.getSourceElementType();
  const Value *baseV = I.getPointerOperand();
  SmallVector<IntKey, 4> idx;
  bool plain = gepToken(st) && isVal(baseV) && plainPtr(baseV);
  for (const Use &u : I.indices()) {
    const Value *x = u.get();
    idx.push_back(intKey(x));
    if (!x->getType()->isIntegerTy())
      plain = false;
    else if (auto *ci = dyn_cast<ConstantInt>(x))
      plain = plain && ci->getBitWidth() != 1;  // i1 prints true/false
    else if (isLocal(x))
      plain = plain && (!x->hasName() || !needsQuotes(x->getName()));
    else
      plain = false;
  }
  auto gepName = [&] { return fn->name + ":%" + localName(&I); };
  if (collapsedPtrs.contains(baseV)) {  // into one field-insensitive node: every offset lands on it
    int base = nodeOf(baseV);
    if (base >= 0)
      B.copy(local(&I), base);
    return;
  }
  if (plain) {
    auto [off, sm] = gepPlan(st, idx);
    int base = nodeOf(baseV);
    int dst = local(&I);
    auto [lo, hi] = gepSlots(st, off, sm, idx, baseV);  // a literal struct's view of the object
    if (lo < hi) {
      B.copy(dst, slotsNode(base, lo, hi, gepName() + ".gep"));
      return;
    }
    off = lo;
    if (sm && st->isIntegerTy(8)) {  // a byte offset into an object whose type is known
      Type *known = knownType(baseV);
      if (known != nullptr && idx.size() == 1 && idx[0].isConst) {
        long slot = byteSlot(known, idx[0]);
        if (slot >= 0)
          off = slot, sm = false;
      }
    }
    if (sm)
      B.copy(dst, B.smear(B.offset(base, off, gepName() + ".gep"), gepName() + ".any"));
    else if (off)
      B.gep(dst, base, off);
    else
      B.copy(dst, base);
    return;
  }
  int base = nodeOf(baseV);
  if (base < 0)
    return;
  int node = gepNode(st, base, idx, gepName() + ".gep", baseV);
  B.copy(local(&I), node);
}

// A call, invoke or callbr: direct, indirect, or of an external (external())
void Extractor::iCall(const CallBase &I) {
  const Value *callee = unwrapped(I.getCalledOperand());
  if (isa<InlineAsm>(callee)) {
    ++inlineAsm;
    return;
  }
  intArgsLater(I);
  FunctionType *fty = I.getFunctionType();
  int nfixed = fty->isVarArg() ? (int)fty->getNumParams() : -1;
  Type *rty = I.getType();
  int result = T.hasPtr(rty) ? local(&I) : -1;
  std::vector<int> args;
  for (const Use &a : I.args())
    args.push_back(T.hasPtr(a->getType()) ? nodeOf(a.get()) : -1);
  std::string res = rty->isVoidTy() ? std::string() : localName(&I);
  if (isLocal(callee) || !isa<GlobalValue>(callee)) {  // through a pointer (or a constant expression)
    int fp = nodeOf(callee);
    if (fp >= 0)
      indirectCall(fp, args, result, nfixed, fn->name + ":%" + (res.empty() ? "call" : res) + ".icall");
    return;
  }
  std::string name = globalName(cast<GlobalValue>(callee));
  if (!isa<Function>(callee)) {  // a global variable, alias or ifunc called as a function
    indirectCall(globalNode(cast<GlobalValue>(callee)), args, result, nfixed, fn->name + ":call." + name);
    return;
  }
  FuncInfo &info = funcList[funcIndex.lookup(cast<Function>(callee))];
  if (info.defined) {
    int F = info.obj, np = (int)info.params.size();
    for (size_t k = 0; k < args.size(); ++k) {
      if (args[k] < 0)
        continue;
      if ((int)k < np)
        B.copy(F + 2 + (int)k, args[k]);
      else if (info.vararg)
        B.copy(info.vaSlot(), args[k]);
    }
    if (result >= 0)
      B.copy(result, F + 1);
    return;
  }
  external(name, args, I, result);
}

// The alias assertion a callee is (MAYALIAS, or C++'s _Z8MAYALIASPvS_), "" when none
std::string Extractor::aliasCheckName(const std::string &callee) const {
  auto isCheck = [&](const std::string &s) {
    return std::find(models.aliasChecks.begin(), models.aliasChecks.end(), s) != models.aliasChecks.end();
  };
  if (isCheck(callee))
    return callee;
  if (StringRef(callee).starts_with("_Z")) {
    size_t e = 2;
    while (e < callee.size() && isDigit(callee[e]))
      ++e;
    if (e > 2 && e - 2 <= 9) {
      size_t n = std::stoul(callee.substr(2, e - 2));
      std::string inner = callee.substr(e, n);
      if (isCheck(inner))
        return inner;
    }
  }
  return "";
}

// An external callee: alias assertions, then the callee's model
void Extractor::external(const std::string &callee, const std::vector<int> &args, const CallBase &I, int result) {
  std::string check = aliasCheckName(callee);
  if (!check.empty()) {
    std::vector<int> nodes;
    for (size_t k = 0; k < std::min<size_t>(2, args.size()); ++k)
      nodes.push_back(args[k] >= 0 ? args[k] : B.node(fn->name + ":null"));
    if (nodes.size() == 2) {
      const DILocation *l = I.getDebugLoc().get();
      std::string loc = l ? locTable[mdLocation(l)].str() : "";
      checks.push_back({check, nodes[0], nodes[1], loc.empty() ? fn->name : loc, fn->name});
    }
    return;
  }
  if ((callee == "dlsym" || callee == "dlvsym") && I.arg_size() > 0 &&
      !isa<ConstantPointerNull>(I.getArgOperand(0)->stripPointerCasts())) {
    ++loadedCode;  // a symbol of a library (or RTLD_NEXT's): code the program does not hold
    if (result >= 0)
      B.addr(result, loadedCodeObj());
  }
  const std::vector<Effect> *model = models.modelFor(callee);
  std::string res = I.getType()->isVoidTy() ? std::string() : localName(&I);
  std::string name = res.empty() ? fn->name + ":" + callee + "()" : fn->name + ":%" + res;
  std::vector<const Value *> argv;
  for (const Use &a : I.args())
    argv.push_back(a.get());
  if (model == nullptr) {
    bool moves = result >= 0;  // a pointer in or out: else nothing to model or report
    for (const Value *v : argv)
      moves = moves || T.hasPtr(v->getType());
    if (!moves)
      return;
    count(unmodelled, unmodelledIndex, callee);
    std::vector<const FuncInfo *> fargs;  // functions handed to unknown code may be called back
    for (const Value *v : argv)
      if (auto *f = dyn_cast<Function>(unwrapped(v))) {
        fargs.push_back(&funcList[funcIndex.lookup(f)]);
        count(callbacks, callbackIndex, callee + "\t" + globalName(f));
      }
    unmodelledCall(callee, args, result, name, fargs);
    return;
  }
  auto constArg = [&](size_t k) -> std::optional<long> {  // ("i", k) argument values
    if (k >= argv.size())
      return std::nullopt;
    auto *ci = dyn_cast<ConstantInt>(argv[k]);
    if (ci == nullptr || ci->getBitWidth() == 1)
      return std::nullopt;
    IntKey v = intKey(ci);  // past 64 bits: the furthest 64-bit value of its sign
    return v.big ? (ci->isNegative() ? INT64_MIN : INT64_MAX) : v.k;
  };
  applyModel(callee, *model, args, constArg, result, name, curLoc(), true);
}

// ModuleExtractor.apply_model (loc: where its objects are; inFunction: a call site, not a body)
void Extractor::applyModel(const std::string &callee, const std::vector<Effect> &model, const std::vector<int> &args,
                           const std::function<std::optional<long>(size_t)> &constArg, int result,
                           const std::string &name, int loc, bool inFunction) {
  auto arg = [&](long k) { return k < (long)args.size() ? args[k] : -1; };
  auto ref = [&](const Item &r) -> int {
    if (r.isInt)
      return arg(r.k);
    if (r.s == "ret")
      return result;
    if (StringRef(r.s).starts_with("*+")) {
      int a = arg(std::stol(r.s.substr(2)));
      if (a < 0)
        return -1;
      int t = B.node(name + ".deref_any");
      B.load(t, B.smear(a, name + ".elem"));
      return t;
    }
    size_t dot = r.s.find('.');
    if (r.s[0] == '*' && dot != std::string::npos) {  // "*a.k": what slot k of *arg[a] holds
      int a = arg(std::stol(r.s.substr(1, dot - 1)));
      if (a < 0)
        return -1;
      std::string k = r.s.substr(dot + 1);
      int t = B.node(name + ".field" + k);
      B.load(t, B.offset(a, std::stol(k), name + ".fieldaddr" + k));
      return t;
    }
    int a = arg(std::stol(r.s.substr(1)));
    if (a < 0)
      return -1;
    if (r.s[0] == '*') {
      int t = B.node(name + ".deref");
      B.load(t, a);
      return t;
    }
    return B.smear(a, name + ".elem");
  };
  auto intoEverySlot = [&](int dst, int obj, const std::string &node) {  // every slot of *dst may point to obj
    int t = B.node(node);
    B.addr(t, obj);
    B.store(B.smear(dst, name + ".fields"), t);
  };
  for (const Effect &eff : model) {
    const std::string &kind = eff[0].s;
    if (kind == "alloc") {
      if (result < 0)
        continue;
      std::optional<long> nbytes;  // _alloc_bytes: the product of the size arguments, when all are constants
      auto which = models.allocSizeArgs.find(callee);
      if (which != models.allocSizeArgs.end()) {
        __int128 total = 1;
        bool known = true;
        for (int k : which->second) {
          std::optional<long> v = constArg(k);
          if (!v) {
            known = false;
            break;
          }
          total = std::clamp<__int128>(total * *v, INT64_MIN, INT64_MAX);  // past 2^63: as good as infinite
        }
        if (known)
          nbytes = (long)total;
      }
      std::optional<int> record = recordSlots(callee);  // a FILE, a DIR: the library's type
      int obj = record ? B.obj("*" + name, *record, OBJECT, loc)
                       : heapObject("*" + name, nbytes, loc, inFunction ? cur : nullptr);
      B.addr(result, obj);
    } else if (kind == "alloc_out") {
      int dst = ref(eff[1]);
      if (dst >= 0) {
        int obj = eff.size() == 3 && eff[2].s == "linked" ? selfLinked("*" + name + ".out", loc, std::nullopt)
                                                          : heapObject("*" + name + ".out", std::nullopt, loc);
        int t = B.node(name + ".out");
        B.addr(t, obj);
        B.store(dst, t);
      }
    } else if (kind == "alloc_into") {
      int dst = ref(eff[1]);
      if (dst >= 0) {
        int obj = eff.size() == 3 && eff[2].s == "linked" ? selfLinked("*" + name + ".into", loc, std::nullopt)
                                                          : heapObject("*" + name + ".into", std::nullopt, loc);
        intoEverySlot(dst, obj, name + ".into");
      }
    } else if (kind == "text_into") {  // every slot of *arg[a] may point to the text object eff[2]
      int dst = ref(eff[1]);
      if (dst >= 0)
        intoEverySlot(dst, staticTextObj(eff[2].s), name + ".text");
    } else if (kind == "smear_fields") {
      int a = ref(eff[1]);
      if (a >= 0) {
        int fields = B.smear(a, name + ".fields");
        int t = B.node(name + ".advanced");
        B.load(t, fields);
        B.store(fields, B.smear(t, name + ".advanced.any"));
      }
    } else if (kind == "static") {
      if (result >= 0)
        B.addr(result, staticObj(callee));
    } else if (kind == "static_text") {
      if (result >= 0)
        B.addr(result, staticTextObj(callee));
    } else if (kind == "keep") {
      int a = ref(eff[1]);
      if (a >= 0)
        B.copy(staticObj(eff.size() > 2 ? eff[2].s : callee), a);
    } else if (kind == "ret_kept") {
      if (result >= 0)
        B.copy(result, staticObj(eff.size() > 1 ? eff[1].s : callee));
    } else if (kind == "store_kept") {
      int d = ref(eff[1]);
      if (d >= 0)
        B.store(d, staticObj(eff.size() > 2 ? eff[2].s : callee));
    } else if (kind == "ret_exported") {
      if (result >= 0 && eff[1].k < (long)args.size() && args[eff[1].k] < 0 && inFunction)
        B.copy(result, exported());  // a null handle (at a call site, not in a body)
    } else if (kind == "store_exported") {
      if (result >= 0 && eff[1].k < (long)args.size() && args[eff[1].k] < 0 && inFunction)
        B.store(result, exported());
    } else if (kind == "ret_arg") {
      int a = ref(eff[1]);
      if (result >= 0 && a >= 0)
        B.copy(result, a);
    } else if (kind == "ret_into") {
      int a = ref(eff[1]);
      if (result >= 0 && a >= 0)
        B.copy(result, B.smear(a, name + ".into"));
    } else if (kind == "copy") {
      int d = ref(eff[1]);
      int s = ref(eff[2]);
      if (d >= 0 && s >= 0) {
        long nbytes = -1;  // window(<= 0) is window(None)
        if (eff[1].isInt && eff[1].k == 0)
          nbytes = constArg(2).value_or(-1);
        int width = window(nbytes);
        for (int k = 0; k < width; ++k) {
          int t = B.node(name + ".copy" + std::to_string(k));
          B.load(t, B.offset(s, k, name + ".src" + std::to_string(k)));
          B.store(B.offset(d, k, name + ".dst" + std::to_string(k)), t);
        }
      }
    } else if (kind == "store_into") {
      int d = ref(eff[1]);
      int s = ref(eff[2]);
      if (d >= 0 && s >= 0)
        B.store(d, B.smear(s, name + ".into"));
    } else if (kind == "call_reached") {
      int a = ref(eff[1]);
      if (a >= 0) {
        int returned = callReached(a, name);
        if (result >= 0)
          B.copy(result, returned);
      }
    } else if (kind == "call") {
      int fp = ref(eff[1]);
      if (fp < 0)
        continue;
      std::vector<int> cargs;
      for (const Item &r : eff[2].tuple) {
        if (!r.isInt && r.s == "int") {
          cargs.push_back(-1);
        } else if (!r.isInt && r.s == "static") {
          int t = B.node(name + ".static");
          B.addr(t, staticObj(callee));
          cargs.push_back(t);
        } else if (!r.isInt && StringRef(r.s).starts_with("kept:")) {  // what a callback's result left there
          int t = B.node(name + ".static");
          B.copy(t, staticObj(r.s.substr(5)));
          cargs.push_back(t);
        } else {
          cargs.push_back(ref(r));
        }
      }
      int ret = -1;
      if (eff.size() > 3) {  // the callback's result is kept in the object named eff[3]
        ret = B.node(name + ".callback.ret");
        B.copy(staticObj(eff[3].s), ret);
      }
      indirectCall(fp, cargs, ret, -1, name + ".callback");
    } else if (kind == "throw") {
      int a = ref(eff[1]);
      if (a >= 0)
        B.copy(exception(), a);
    } else if (kind == "va_start") {
      int a = ref(eff[1]);
      if (a >= 0 && inFunction && fn->vararg) {
        int t = B.node(fn->name + ":va_start");
        B.addr(t, fn->vaSlot());
        B.store(B.smear(a, fn->name + ":va_list"), t);
      }
    } else if (kind == "va_copy") {
      int d = ref(eff[1]);
      int s = ref(eff[2]);
      if (d >= 0 && s >= 0) {
        int t = B.node(name + ".va_copy");
        B.load(t, B.smear(s, name + ".va_src"));
        B.store(B.smear(d, name + ".va_dst"), t);
      }
    } else {
      unsupported("model effect " + kind);
    }
  }
}

// ----------------------------------------------------------------- output
template <typename T> void put(raw_ostream &out, const std::vector<T> &v) {
  out.write(reinterpret_cast<const char *>(v.data()), v.size() * sizeof(T));
}

void Extractor::write(raw_ostream &out) {
  std::string locs;
  for (StringRef s : locTable) {
    locs += s;
    locs += '\0';
  }
  std::string stats;
  raw_string_ostream st(stats);
  st << "instructions\t" << instructions << "\nfunctions_defined\t" << definedCount << "\nfunctions_declared\t"
     << declaredCount << "\nglobals\t" << globalCount << "\ninline_asm\t" << inlineAsm << "\nloaded_code_lookups\t" << loadedCode << "\n";
  for (unsigned op : opcodeOrder)
    st << "opcode\t" << Instruction::getOpcodeName(op) << "\t" << opcodeCounts[op] << "\n";
  for (auto &[name, n] : unmodelled)
    st << "unmodelled\t" << name << "\t" << n << "\n";
  for (auto &[name, n] : unknown)
    st << "unknown\t" << name << "\t" << n << "\n";
  for (auto &[key, n] : callbacks)
    st << "callback\t" << key << "\t" << n << "\n";
  for (auto &c : checks)
    st << "alias_check\t" << c.kind << "\t" << c.a << "\t" << c.b << "\t" << c.loc << "\t" << c.fn << "\n";
  st.flush();
  out << "ANDX2\n";
  std::vector<int64_t> header{B.n(), (int64_t)B.col[ADDR_D].size(), (int64_t)B.col[COPY_D].size(),
                              (int64_t)B.col[LOAD_D].size(), (int64_t)B.col[STORE_D].size(),
                              (int64_t)B.col[GEP_D].size(), (int64_t)B.names.size(), (int64_t)locs.size(),
                              (int64_t)stats.size(), i2pObj, (int64_t)B.col[CALL_D].size()};
  put(out, header);
  std::vector<int32_t> size = B.size;  // a field-insensitive object's size is written as -1
  for (int32_t o : B.fi)
    size[o] = -1;
  put(out, size);
  put(out, B.loc);
  for (auto &c : B.col)
    put(out, c);
  put(out, B.kind);
  out << B.names << locs << stats;
  if (recordSites)
    writeSites(out);
}

// ------------------------------------------------------------ access sites
// constraints/llvm/access_sites.py: every load, store, atomic, memory
// intrinsic and call of a defined function, keyed (function, block label as
// printed, index in the block not counting debug intrinsics), with the nodes
// of its pointer operands. Recorded after the function's constraints, so the
// nodes it needs (a global's address, a constant expression) are made then.

enum SiteKind : int8_t { S_LOAD, S_STORE, S_ATOMIC, S_MEMCPY, S_MEMMOVE, S_MEMSET, S_CALL };
// access_sites.CALL_CLASSES, in order
enum CallClass : int8_t { C_DEFINED, C_INDIRECT, C_MODELLED, C_UNMODELLED, C_ASM, C_INTRINSIC, C_ASSERTION };

// The node of an operand, without making one for a local that never got one.
int Extractor::siteNode(const Value *v) {
  v = unwrapped(v);
  if (isLocal(v)) {
    auto it = locals.find(v);
    return it == locals.end() ? -1 : it->second;
  }
  return nodeOf(v);
}

// The window(), widened by the literal struct types of allocas.
int Extractor::siteWindow(long nbytes) {
  auto hit = siteWindowMemo.find(nbytes);
  if (hit != siteWindowMemo.end())
    return hit->second;
  if (!allocaLiteralsFound) {
    DenseSet<Type *> seen;
    for (Function &f : M)
      for (BasicBlock &bb : f)
        for (Instruction &I : bb)
          if (auto *a = dyn_cast<AllocaInst>(&I)) {
            Type *t = a->getAllocatedType(), *e = t;
            while (auto *arr = dyn_cast<ArrayType>(e))
              e = arr->getElementType();
            auto *st = dyn_cast<StructType>(e);
            if (st != nullptr && st->isLiteral() && seen.insert(t).second)
              allocaLiterals.push_back(t);
          }
    allocaLiteralsFound = true;
  }
  int w = window(nbytes);
  for (Type *t : allocaLiterals) {
    std::vector<long> offs;
    T.slotOffsets(t, 0, offs);
    for (size_t j = 0; j < offs.size(); ++j)
      w = std::max(w, (int)(std::lower_bound(offs.begin(), offs.end(), offs[j] + nbytes) - offs.begin() - (long)j));
  }
  return siteWindowMemo[nbytes] = w;
}

// A pointer operand as written, without its type ("%p", "@g", "getelementptr (...)").
std::string Extractor::operandToken(const Value *v) {
  if (isLocal(v))
    return "%" + localName(v);
  if (auto *g = dyn_cast<GlobalValue>(v))
    return "@" + globalName(g);
  if (!slotTracker)
    slotTracker = std::make_unique<ModuleSlotTracker>(&M, false);
  std::string value;
  raw_string_ostream os(value);
  v->printAsOperand(os, /*PrintType=*/false, *slotTracker);
  os.flush();
  return value;
}

// A memory intrinsic's operand: a name, null, or <const>
std::string Extractor::valueText(const Value *v) {
  v = unwrapped(v);
  if (isLocal(v))
    return "%" + localName(v);
  if (auto *g = dyn_cast<GlobalValue>(v))
    return "@" + globalName(g);
  if (isa<ConstantPointerNull>(v) || isa<UndefValue>(v) || isa<ConstantAggregateZero>(v) ||
      isa<ConstantTokenNone>(v) || isa<ConstantTargetNone>(v) || isa<BlockAddress>(v) ||
      isa<ConstantDataSequential>(v) || isa<MetadataAsValue>(v))
    return "null";
  return "<const>";
}

// How a direct callee is known (access_sites.CALL_CLASSES)
int Extractor::calleeClass(const Function *f) {
  if (!f->isDeclaration())
    return C_DEFINED;
  std::string name = globalName(f);
  auto isCheck = [&](const std::string &x) {
    return std::find(models.aliasChecks.begin(), models.aliasChecks.end(), x) != models.aliasChecks.end();
  };
  std::string bare = name;
  if (StringRef(name).starts_with("_Z")) {  // _Z8MAYALIASPvS_
    size_t e = 2;
    while (e < name.size() && isDigit(name[e]))
      ++e;
    if (e > 2 && e - 2 <= 9)
      bare = name.substr(e, std::stoul(name.substr(2, e - 2)));
  }
  if (isCheck(name) || isCheck(bare))
    return C_ASSERTION;
  if (models.modelFor(name) != nullptr)
    return C_MODELLED;
  if (StringRef(name).starts_with("llvm."))
    return C_INTRINSIC;
  return C_UNMODELLED;
}

void Extractor::site(int kind, const std::string &block, int index, const Instruction &I, const std::string &pointer,
                     const std::vector<int> &nodes, int width, int cls, const std::string &callee, int fp,
                     int result) {
  SiteTable &t = sites;
  t.index.push_back(index);
  t.width.push_back(width);
  t.fp.push_back(fp);
  t.result.push_back(result);
  t.nodes.insert(t.nodes.end(), nodes.begin(), nodes.end());
  t.indptr.push_back((int32_t)t.nodes.size());
  t.kind.push_back((int8_t)kind);
  t.cls.push_back((int8_t)cls);
  const DILocation *l = I.getDebugLoc().get();
  for (StringRef x : {StringRef(fn->name), StringRef(block), l ? locTable[lineLocation(l)] : StringRef(),
                      StringRef(pointer), StringRef(callee)}) {
    t.strings.append(x.data(), x.size());
    t.strings += '\0';
  }
}

void Extractor::sitesOf(FuncInfo &fi) {
  if (sites.functionClass.empty())
    for (FuncInfo &g : funcList)
      sites.functionClass.emplace_back(g.name, (int8_t)calleeClass(g.f));
  for (BasicBlock &bb : *fi.f) {
    std::string block = bb.hasName() ? printedName(bb.getName()) : std::to_string(slots.lookup(&bb));
    int index = 0;
    for (Instruction &I : bb) {
      const Value *p;
      if (auto *call = dyn_cast<CallBase>(&I)) {
        auto *f = dyn_cast<Function>(unwrapped(call->getCalledOperand()));
        if (f != nullptr && f->getName().starts_with("llvm.dbg."))
          continue;  // not counted: older printers show debug records as these calls
        int result = -1;
        auto r = locals.find(&I);
        if (r != locals.end())
          result = r->second;
        const Value *callee = unwrapped(call->getCalledOperand());
        if (isa<InlineAsm>(callee)) {
          site(S_CALL, block, index++, I, "asm", {}, 0, C_ASM, "", -1, result);
          continue;
        }
        std::vector<int> args;
        for (const Use &a : call->args())
          if (T.hasPtr(a->getType()))
            args.push_back(siteNode(a.get()));
        StringRef name = f ? f->getName() : StringRef();
        int mem = name.starts_with("llvm.memcpy.") ? S_MEMCPY : name.starts_with("llvm.memmove.") ? S_MEMMOVE
                : name.starts_with("llvm.memset.") ? S_MEMSET : -1;
        if (mem >= 0) {
          size_t nops = mem == S_MEMSET ? 1 : 2;
          int width = 0;
          if (call->arg_size() > 2)
            if (auto *size = dyn_cast<ConstantInt>(call->getArgOperand(2))) {
              IntKey k = intKey(size);
              long nbytes = k.big ? (size->isNegative() ? -1 : INT64_MAX) : k.k;
              width = nbytes > 0 ? siteWindow(nbytes) : 0;
            }
          std::string ops;
          for (size_t k = 0; k < std::min(nops, (size_t)call->arg_size()); ++k)
            ops += (k ? ", " : "") + valueText(call->getArgOperand((unsigned)k));
          args.resize(std::min(nops, args.size()));
          site(mem, block, index++, I, ops, args, width);
          continue;
        }
        if (!isa<GlobalValue>(callee)) {  // through a pointer (or a constant expression)
          site(S_CALL, block, index++, I, operandToken(callee), args, 0, C_INDIRECT, "", siteNode(callee), result);
        } else if (f != nullptr) {
          site(S_CALL, block, index++, I, "@" + globalName(f), args, 0, calleeClass(f), globalName(f), -1, result);
        } else {  // a global variable, alias or ifunc called as a function
          auto *g = cast<GlobalValue>(callee);
          int node = globalNode(g);
          site(S_CALL, block, index++, I, "@" + globalName(g), args, 0, C_INDIRECT, "", node, result);
        }
        continue;
      }
      if (auto *ld = dyn_cast<LoadInst>(&I)) {
        p = ld->getPointerOperand();
        site(S_LOAD, block, index, I, operandToken(p), {siteNode(p)}, siteWidth(ld->getType()));
      } else if (auto *st = dyn_cast<StoreInst>(&I)) {
        p = st->getPointerOperand();
        site(S_STORE, block, index, I, operandToken(p), {siteNode(p)}, siteWidth(st->getValueOperand()->getType()));
      } else if (auto *rmw = dyn_cast<AtomicRMWInst>(&I)) {
        p = rmw->getPointerOperand();
        site(S_ATOMIC, block, index, I, operandToken(p), {siteNode(p)}, siteWidth(rmw->getValOperand()->getType()));
      } else if (auto *x = dyn_cast<AtomicCmpXchgInst>(&I)) {
        p = x->getPointerOperand();
        site(S_ATOMIC, block, index, I, operandToken(p), {siteNode(p)},
             siteWidth(x->getCompareOperand()->getType()));
      }
      ++index;
    }
  }
}

// After the statistics: "SITES\n", int64[4] (sites, operand nodes, bytes of strings,
// functions), int32 columns index, width, fp, result, node_indptr (sites + 1), nodes,
// int8 columns kind, call_class (-1: not a call), then the strings, '\0' after each:
// five per site (function, block, location, pointer, callee) and two per function
// (name, class).
void Extractor::writeSites(raw_ostream &out) {
  SiteTable &t = sites;
  if (loadedFn >= 0)  // dlsym's loaded code is unknown code to the alias facts too
    t.functionClass.emplace_back("dlsym.loaded", (int8_t)C_UNMODELLED);
  std::string fstrings;
  for (auto &[name, cls] : t.functionClass) {
    fstrings += name;
    fstrings += '\0';
    fstrings += (char)('0' + cls);
    fstrings += '\0';
  }
  out << "SITES\n";
  std::vector<int64_t> header{(int64_t)t.kind.size(), (int64_t)t.nodes.size(),
                              (int64_t)(t.strings.size() + fstrings.size()), (int64_t)t.functionClass.size()};
  put(out, header);
  for (auto *c : {&t.index, &t.width, &t.fp, &t.result, &t.indptr, &t.nodes})
    put(out, *c);
  put(out, t.kind);
  put(out, t.cls);
  out << t.strings << fstrings;
}

}  // namespace

// Declared in read_bitcode.cpp, which calls it.
bool extractConstraints(Module &m, const char *modelsPath, raw_ostream &out, std::string &why,
                        raw_ostream *progress, bool sites, bool foldConstants) {
  Models models;
  if (!models.load(modelsPath)) {
    why = std::string("cannot read the models file ") + modelsPath;
    return false;
  }
  try {
    // never freed: the process exits next, and freeing it all costs more than building
    Extractor &ex = *new Extractor(m, models);
    ex.progress = progress;
    ex.recordSites = sites;
    ex.foldConstants = foldConstants;
    ex.run();
    ex.write(out);
    return true;
  } catch (const Unsupported &u) {
    why = u.why;
    return false;
  }
}
