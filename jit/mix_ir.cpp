#include "jit/mix_ir.hpp"

#include <llvm/IR/Constants.h>
#include <llvm/IR/DerivedTypes.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/IntrinsicsNVPTX.h>
#include <llvm/IR/Metadata.h>
#include <llvm/IR/Module.h>

#include <vector>

#include "mixer/interpreter.hpp"

namespace mixforge::jit {
namespace {

using llvm::BasicBlock;
using llvm::ConstantInt;
using llvm::Function;
using llvm::IRBuilder;
using llvm::Type;
using llvm::Value;

}  // namespace

// Bits above n may hold garbage ("dirty") as long as no step reads them: only
// xorshift-right and rotate read high bits into low ones, so we mask right before
// those and at the end.
Value* emit_mix(llvm::IRBuilderBase& b, Value* x, const mixer::Program& p, bool input_clean) {
  Type* t = x->getType();
  const int container = static_cast<int>(t->getScalarSizeInBits());
  const int n = p.width();
  const bool full = n == container;
  const std::uint64_t m = p.mask();
  auto k = [&](std::uint64_t v) { return ConstantInt::get(t, v); };
  bool dirty = !input_clean;
  auto clean = [&] {
    if (dirty && !full) x = b.CreateAnd(x, k(m));
    dirty = false;
  };
  for (const mixer::Step& s : p.steps()) {
    const std::uint64_t c = s.operand;
    switch (s.kind) {
      case mixer::StepKind::xor_const: x = b.CreateXor(x, k(c)); break;
      case mixer::StepKind::mul_const:
        x = b.CreateMul(x, k(c));
        dirty = true;
        break;
      case mixer::StepKind::add_const:
        x = b.CreateAdd(x, k(c));
        dirty = true;
        break;
      case mixer::StepKind::sub_const:
        x = b.CreateSub(x, k(c));
        dirty = true;
        break;
      case mixer::StepKind::xorshift_right:
        clean();
        x = b.CreateXor(x, b.CreateLShr(x, k(c)));
        break;
      case mixer::StepKind::xorshift_left:
        x = b.CreateXor(x, b.CreateShl(x, k(c)));
        dirty = true;
        break;
      case mixer::StepKind::add_shift:
        x = b.CreateAdd(x, b.CreateShl(x, k(c)));
        dirty = true;
        break;
      case mixer::StepKind::sub_shift:
        x = b.CreateSub(x, b.CreateShl(x, k(c)));
        dirty = true;
        break;
      case mixer::StepKind::rotate:
        if (full) {
          x = b.CreateIntrinsic(llvm::Intrinsic::fshl, {t}, {x, x, k(c)});
        } else {
          clean();
          x = b.CreateOr(b.CreateShl(x, k(c)), b.CreateLShr(x, k(n - c)));
          dirty = true;
        }
        break;
    }
  }
  clean();
  return x;
}

namespace {

// How many leading steps of p are affine over GF(2) on n-bit values (x ^ y maps to
// L(x) ^ L(y) ^ L(0)): xor by a constant, xorshifts and rotations. The whole program when
// every step is.
std::size_t affine_prefix(const mixer::Program& p) {
  std::size_t k = 0;
  for (const mixer::Step& s : p.steps()) {
    const bool affine = s.kind == mixer::StepKind::xor_const || s.kind == mixer::StepKind::xorshift_right ||
                        s.kind == mixer::StepKind::xorshift_left || s.kind == mixer::StepKind::rotate;
    if (!affine) break;
    ++k;
  }
  return k;
}

Value* iota(IRBuilder<>& b, llvm::Type* elem, unsigned lanes) {
  std::vector<llvm::Constant*> v;
  for (unsigned l = 0; l < lanes; ++l) v.push_back(ConstantInt::get(elem, l));
  return llvm::ConstantVector::get(v);
}

Function* make_function(llvm::Module& m, const std::string& name, Type* ret,
                        std::vector<Type*> params, const std::string& cpu,
                        const std::string& features) {
  auto* ft = llvm::FunctionType::get(ret, params, false);
  Function* f = Function::Create(ft, Function::ExternalLinkage, name, m);
  f->addFnAttr(llvm::Attribute::NoUnwind);
  f->addFnAttr("target-cpu", cpu);
  if (!features.empty()) f->addFnAttr("target-features", features);
  // Without these X86 splits 512-bit vectors into two 256-bit halves.
  f->addFnAttr("prefer-vector-width", "512");
  f->addFnAttr("min-legal-vector-width", "512");
  return f;
}

// A counted loop: for (i = start; i < end; i += step) body(i). Leaves the builder in
// the exit block.
template <class Body>
void emit_loop(IRBuilder<>& b, Function* f, Value* start, Value* end, std::uint64_t step,
               const char* name, Body body) {
  llvm::LLVMContext& ctx = b.getContext();
  BasicBlock* pre = b.GetInsertBlock();
  BasicBlock* head = BasicBlock::Create(ctx, std::string(name) + ".head", f);
  BasicBlock* loop = BasicBlock::Create(ctx, std::string(name) + ".body", f);
  BasicBlock* exit = BasicBlock::Create(ctx, std::string(name) + ".exit", f);
  b.CreateBr(head);
  b.SetInsertPoint(head);
  llvm::PHINode* i = b.CreatePHI(start->getType(), 2, name);
  i->addIncoming(start, pre);
  b.CreateCondBr(b.CreateICmpULT(i, end), loop, exit);
  b.SetInsertPoint(loop);
  body(static_cast<Value*>(i));
  Value* next = b.CreateAdd(i, ConstantInt::get(start->getType(), step));
  i->addIncoming(next, b.GetInsertBlock());
  b.CreateBr(head);
  b.SetInsertPoint(exit);
}

}  // namespace

KernelSymbols emit_kernel_ir(llvm::Module& module, const mixer::Program& p, unsigned parts, const std::string& prefix,
                             const std::string& cpu, const std::string& features) {
  llvm::LLVMContext& ctx = module.getContext();
  IRBuilder<> b(ctx);
  const int n = p.width();
  const bool narrow = n <= 32;
  Type* i64 = b.getInt64Ty();
  Type* i32 = b.getInt32Ty();
  Type* word = narrow ? i32 : i64;
  const unsigned lanes = narrow ? 16 : 8;
  auto* vword = llvm::FixedVectorType::get(word, lanes);
  Type* ptr = llvm::PointerType::getUnqual(ctx);
  KernelSymbols syms;

  // apply(in, out, count): 8 x u64 per iteration, then a scalar tail.
  if (parts & parts_apply) {
    syms.apply = prefix + "_apply";
    Function* f = make_function(module, syms.apply, b.getVoidTy(), {ptr, ptr, i64}, cpu, features);
    Value* in = f->getArg(0);
    Value* out = f->getArg(1);
    Value* count = f->getArg(2);
    b.SetInsertPoint(BasicBlock::Create(ctx, "entry", f));
    Value* vec_end = b.CreateAnd(count, b.getInt64(~std::uint64_t{7}));
    auto* v8 = llvm::FixedVectorType::get(i64, 8);
    auto* v8w = llvm::FixedVectorType::get(word, 8);
    emit_loop(b, f, b.getInt64(0), vec_end, 8, "v", [&](Value* i) {
      Value* x = b.CreateAlignedLoad(v8, b.CreateGEP(i64, in, i), llvm::Align(8));
      if (narrow) x = b.CreateTrunc(x, v8w);
      Value* h = emit_mix(b, x, p, false);
      if (narrow) h = b.CreateZExt(h, v8);
      b.CreateAlignedStore(h, b.CreateGEP(i64, out, i), llvm::Align(8));
    });
    emit_loop(b, f, vec_end, count, 1, "s", [&](Value* i) {
      Value* x = b.CreateAlignedLoad(i64, b.CreateGEP(i64, in, i), llvm::Align(8));
      if (narrow) x = b.CreateTrunc(x, word);
      Value* h = emit_mix(b, x, p, false);
      if (narrow) h = b.CreateZExt(h, i64);
      b.CreateAlignedStore(h, b.CreateGEP(i64, out, i), llvm::Align(8));
    });
    b.CreateRetVoid();
  }

  // tile(out, base, shift, vectors): out[16v + l] = f(base | (16v + l) << shift).
  if (narrow && (parts & parts_tile)) {
    syms.tile = prefix + "_tile";
    Function* f = make_function(module, syms.tile, b.getVoidTy(), {ptr, i32, i32, i64}, cpu, features);
    Value* out = f->getArg(0);
    b.SetInsertPoint(BasicBlock::Create(ctx, "entry", f));
    Value* base = b.CreateVectorSplat(16, f->getArg(1));
    Value* shift = f->getArg(2);
    // y = (16 v + lane) << shift goes from vector to vector by one add: recomputing it
    // (broadcast, or, variable shift) took 3 of the loop's 15 vector operations, and the
    // loop is bound by the two 512-bit ports (measured: bench/results/scoring/README.md).
    Value* y0 = b.CreateShl(iota(b, i32, 16), b.CreateVectorSplat(16, shift));
    Value* step = b.CreateVectorSplat(16, b.CreateShl(b.getInt32(16), shift));
    BasicBlock* entry = b.GetInsertBlock();
    BasicBlock* head = BasicBlock::Create(ctx, "v.head", f);
    BasicBlock* body = BasicBlock::Create(ctx, "v.body", f);
    BasicBlock* exit = BasicBlock::Create(ctx, "v.exit", f);
    b.CreateBr(head);
    b.SetInsertPoint(head);
    llvm::PHINode* v = b.CreatePHI(i64, 2, "v");
    llvm::PHINode* y = b.CreatePHI(y0->getType(), 2, "y");
    v->addIncoming(b.getInt64(0), entry);
    y->addIncoming(y0, entry);
    b.CreateCondBr(b.CreateICmpULT(v, f->getArg(3)), body, exit);
    b.SetInsertPoint(body);
    Value* h = emit_mix(b, b.CreateOr(base, y), p, false);
    b.CreateAlignedStore(h, b.CreateGEP(i32, out, b.CreateShl(v, 4)), llvm::Align(4));
    v->addIncoming(b.CreateAdd(v, b.getInt64(1)), b.GetInsertBlock());
    y->addIncoming(b.CreateAdd(y, step), b.GetInsertBlock());
    b.CreateBr(head);
    b.SetInsertPoint(exit);
    b.CreateRetVoid();
  }

  // diffs(in, out, vectors): for each vector of inputs x (clean, < 2^n) and each input
  // bit i: f(x) ^ f(x ^ 2^i). Sample generation stays in precompiled code: 64-bit vector
  // multiplies are the slowest thing to compile.
  // The program's leading XOR-affine steps L (affine_prefix) are hashed once per input:
  // L(x ^ 2^i) = L(x) ^ c_i with c_i = L(2^i) ^ L(0), a constant, so the partners start at
  // the rest R: f(x ^ 2^i) = R(L(x) ^ c_i), the same value with L's steps left out of the
  // n partner hashes (xsr, mul, xsr, mul, xsr: 4 of 5 steps).
  if (parts & parts_diffs) {
    syms.diffs = prefix + "_diffs";
    Function* f = make_function(module, syms.diffs, b.getVoidTy(), {ptr, ptr, i64}, cpu, features);
    Value* in = f->getArg(0);
    Value* out = f->getArg(1);
    b.SetInsertPoint(BasicBlock::Create(ctx, "entry", f));
    const llvm::Align align(narrow ? 4 : 8);
    const std::size_t lead = affine_prefix(p);
    const mixer::Program head(n, {p.steps().begin(), p.steps().begin() + static_cast<std::ptrdiff_t>(lead)});
    const mixer::Program rest(n, {p.steps().begin() + static_cast<std::ptrdiff_t>(lead), p.steps().end()});
    llvm::GlobalVariable* partner_xor = nullptr;  // c_i, as words
    if (lead > 0) {
      std::vector<llvm::Constant*> c;
      for (int i = 0; i < n; ++i)
        c.push_back(ConstantInt::get(word, mixer::apply(head, std::uint64_t{1} << i) ^ mixer::apply(head, 0)));
      auto* table = llvm::ArrayType::get(word, static_cast<std::uint64_t>(n));
      partner_xor = new llvm::GlobalVariable(module, table, true, llvm::GlobalValue::PrivateLinkage,
                                             llvm::ConstantArray::get(table, c), prefix + "_partner_xor");
    }
    emit_loop(b, f, b.getInt64(0), f->getArg(2), 1, "v", [&](Value* v) {
      Value* x = b.CreateAlignedLoad(vword, b.CreateGEP(word, in, b.CreateMul(v, b.getInt64(lanes))), align);
      if (lead > 0) x = emit_mix(b, x, head, true);  // L(x), clean
      Value* h0 = emit_mix(b, x, rest, true);
      Value* row = b.CreateMul(v, b.getInt64(static_cast<std::uint64_t>(n)));
      emit_loop(b, f, b.getInt64(0), b.getInt64(static_cast<std::uint64_t>(n)), 1, "bit", [&](Value* i) {
        Value* one = partner_xor ? static_cast<Value*>(b.CreateLoad(word, b.CreateGEP(word, partner_xor, i)))
                                 : b.CreateShl(ConstantInt::get(word, 1), narrow ? b.CreateTrunc(i, i32) : i);
        Value* h = emit_mix(b, b.CreateXor(x, b.CreateVectorSplat(lanes, one)), rest, true);
        Value* at = b.CreateMul(b.CreateAdd(row, i), b.getInt64(lanes));
        b.CreateAlignedStore(b.CreateXor(h0, h), b.CreateGEP(word, out, at), align);
      });
    });
    b.CreateRetVoid();
  }
  return syms;
}

void emit_ptx_kernel_ir(llvm::Module& module, const mixer::Program& p, const std::string& name) {
  llvm::LLVMContext& ctx = module.getContext();
  IRBuilder<> b(ctx);
  Type* i64 = b.getInt64Ty();
  Type* ptr = llvm::PointerType::get(ctx, 1);  // global address space
  auto* ft = llvm::FunctionType::get(b.getVoidTy(), {ptr, ptr, i64}, false);
  Function* f = Function::Create(ft, Function::ExternalLinkage, name, module);
  f->setCallingConv(llvm::CallingConv::PTX_Kernel);
  f->addFnAttr(llvm::Attribute::NoUnwind);
  // LLVM 19's NVPTX back end recognises kernels by this annotation.
  llvm::Metadata* annotation[] = {llvm::ValueAsMetadata::get(f), llvm::MDString::get(ctx, "kernel"),
                                  llvm::ValueAsMetadata::get(b.getInt32(1))};
  module.getOrInsertNamedMetadata("nvvm.annotations")->addOperand(llvm::MDNode::get(ctx, annotation));

  BasicBlock* entry = BasicBlock::Create(ctx, "entry", f);
  BasicBlock* body = BasicBlock::Create(ctx, "body", f);
  BasicBlock* done = BasicBlock::Create(ctx, "done", f);
  b.SetInsertPoint(entry);
  auto sreg = [&](llvm::Intrinsic::ID id) { return b.CreateZExt(b.CreateIntrinsic(id, {}, {}), i64); };
  Value* i = b.CreateAdd(b.CreateMul(sreg(llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_x),
                                     sreg(llvm::Intrinsic::nvvm_read_ptx_sreg_ntid_x)),
                         sreg(llvm::Intrinsic::nvvm_read_ptx_sreg_tid_x));
  b.CreateCondBr(b.CreateICmpULT(i, f->getArg(2)), body, done);
  b.SetInsertPoint(body);
  const bool narrow = p.width() <= 32;
  Value* x = b.CreateAlignedLoad(i64, b.CreateGEP(i64, f->getArg(0), i), llvm::Align(8));
  if (narrow) x = b.CreateTrunc(x, b.getInt32Ty());
  Value* h = emit_mix(b, x, p, false);
  if (narrow) h = b.CreateZExt(h, i64);
  b.CreateAlignedStore(h, b.CreateGEP(i64, f->getArg(1), i), llvm::Align(8));
  b.CreateBr(done);
  b.SetInsertPoint(done);
  b.CreateRetVoid();
}

}  // namespace mixforge::jit
