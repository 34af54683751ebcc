// The avalanche counting kernels of the GPU evaluator (contract in jit/ptx.hpp), written
// once against a small "warp" interface with two back ends: NVPTX, where a lane is a
// CUDA thread and lanes talk through warp shuffles, and the host, where a warp is a
// 32-lane LLVM vector and a shuffle is a shufflevector. The host form exists so that the
// counting logic itself is tested on machines without a GPU (jit/warp_simulator.hpp).
#include <llvm/IR/Constants.h>
#include <llvm/IR/DerivedTypes.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/IntrinsicsNVPTX.h>
#include <llvm/IR/Metadata.h>
#include <llvm/IR/Module.h>

#include <algorithm>
#include <array>
#include <bit>
#include <stdexcept>
#include <string>
#include <vector>

#include "jit/count_kernels.hpp"
#include "jit/mix_ir.hpp"

namespace mixforge::jit {
namespace {

using llvm::BasicBlock;
using llvm::ConstantInt;
using llvm::Function;
using llvm::IRBuilder;
using llvm::Type;
using llvm::Value;

constexpr unsigned warp_size = 32;

// Lane-wise values: scalars on NVPTX (one per thread), <32 x T> vectors on the host.
class Warp {
 public:
  Warp(IRBuilder<>& b, CountTarget target) : b_(b), gpu_(target == CountTarget::nvptx) {}
  bool gpu() const { return gpu_; }
  Type* type(Type* scalar) const { return gpu_ ? scalar : llvm::FixedVectorType::get(scalar, warp_size); }
  Value* splat(Value* uniform) const { return gpu_ ? uniform : b_.CreateVectorSplat(warp_size, uniform); }
  Value* constant(Type* scalar, std::uint64_t v) const { return ConstantInt::get(type(scalar), v); }
  // Lane l's value becomes lane (l ^ mask)'s. All 32 lanes must be active (they are: the
  // kernels branch only on warp-uniform conditions and mask invalid lanes with selects).
  Value* shuffle_xor(Value* v, unsigned mask) const {
    if (gpu_)
      return b_.CreateIntrinsic(llvm::Intrinsic::nvvm_shfl_sync_bfly_i32, {},
                                {b_.getInt32(0xffffffffu), v, b_.getInt32(mask), b_.getInt32(0x1f)});
    std::vector<int> lanes;
    for (unsigned l = 0; l < warp_size; ++l) lanes.push_back(static_cast<int>(l ^ mask));
    return b_.CreateShuffleVector(v, v, lanes);
  }
  void set_lane(Value* lane) { lane_ = lane; }
  Value* lane() const { return lane_; }  // i32 lane index, lane-wise

 private:
  IRBuilder<>& b_;
  bool gpu_;
  Value* lane_ = nullptr;
};

// After this, lane r holds bit r of every lane's word: bit k of the result is bit r of
// lane k's v. Five butterfly stages, each swapping the off-diagonal s x s blocks of lane
// pairs {l, l ^ s}; popcount of lane r's result then counts lanes with bit r set.
// A stage is a shuffle, a rotate and a bitwise select: for these masks m (blocks of s bits
// from bit 0), (p << s) & ~m == rotl(p, s) & ~m and (p >> s) & m == rotl(p, 32 - s) & m, so
// the lane's rotate amount and kept mask depend on the lane alone (hoisted out of loops).
// In PTX that is shf.l.wrap and two logic ops (one LOP3 after ptxas, presumably) against
// about nine shifts, masks and selects in the textbook form; with the skipped shuffles
// below, exact lowbias32 went from 175 to 136 ms on an H100 (bench/results/gpu/).
// same_at: a lane distance s at which v is known equal in lanes l and l ^ s (a difference
// word of input bit log2(s) < 5); that stage's partner is the lane itself, so no shuffle.
Value* transpose(IRBuilder<>& b, const Warp& w, Value* v, unsigned same_at = 0) {
  Type* i32 = b.getInt32Ty();
  static constexpr std::uint32_t masks[] = {0x0000ffffu, 0x00ff00ffu, 0x0f0f0f0fu, 0x33333333u, 0x55555555u};
  unsigned s = 16;
  for (std::uint32_t m : masks) {
    // Stages at distances above same_at keep v(l) == v(l ^ same_at): they treat both alike.
    Value* p = s == same_at ? v : w.shuffle_xor(v, s);
    Value* low = b.CreateICmpEQ(b.CreateAnd(w.lane(), w.constant(i32, s)), w.constant(i32, 0));
    Value* amount = b.CreateSelect(low, w.constant(i32, s), w.constant(i32, 32 - s));
    Value* keep = b.CreateSelect(low, w.constant(i32, m), w.constant(i32, ~m));
    Value* moved = b.CreateIntrinsic(llvm::Intrinsic::fshl, {w.type(i32)}, {p, p, amount});
    v = b.CreateOr(b.CreateAnd(v, keep), b.CreateAnd(moved, b.CreateNot(keep)));
    s >>= 1;
  }
  return v;
}

// SplitMix64's output function on the counter (avalanche/count/sample_stream.hpp), lane-wise.
Value* sample_input(IRBuilder<>& b, const Warp& w, Value* seed, Value* index) {
  Type* i64 = b.getInt64Ty();
  auto k = [&](std::uint64_t v) { return w.constant(i64, v); };
  Value* z = b.CreateAdd(seed, b.CreateMul(b.CreateAdd(index, k(1)), k(0x9e3779b97f4a7c15ull)));
  z = b.CreateMul(b.CreateXor(z, b.CreateLShr(z, k(30))), k(0xbf58476d1ce4e5b9ull));
  z = b.CreateMul(b.CreateXor(z, b.CreateLShr(z, k(27))), k(0x94d049bb133111ebull));
  return b.CreateXor(z, b.CreateLShr(z, k(31)));
}

struct KernelArgs {
  Value* counts;    // u64*, the batch's counts: program b at b * n * n
  Value* first;     // i64
  Value* end;       // i64
  Value* per_warp;  // i64, a multiple of 32
  Value* seed;      // i64
  Value* warp;      // i64 warp index
  Value* program;   // i32 index into the batch
  // The tiled kernels' lane counters, n * halves lane-wise i32 (one array for the whole
  // batch: ptxas would give each program's array its own stack space).
  Value* counters = nullptr;
};

// counts[program][i][32h + r] += lane r of cells[i * halves + h]: the warp's lane counters
// (i32, lane-wise) added into the batch's counts.
void emit_count_writes(IRBuilder<>& b, Function* f, const Warp& w, const KernelArgs& a, int n, int halves,
                       const std::vector<Value*>& cells) {
  llvm::LLVMContext& ctx = b.getContext();
  Type* i64 = b.getInt64Ty();
  Value* matrix = b.CreateMul(b.CreateZExt(a.program, i64), b.getInt64(static_cast<std::uint64_t>(n) * n));
  auto add = [&](Value* cell, Value* value) {
    Value* at = b.CreateGEP(i64, a.counts, b.CreateAdd(matrix, cell));
    b.CreateAtomicRMW(llvm::AtomicRMWInst::Add, at, b.CreateZExt(value, i64), llvm::Align(8),
                      llvm::AtomicOrdering::Monotonic);
  };
  for (int i = 0; i < n; ++i)
    for (int half = 0; half < halves; ++half) {
      Value* c = cells[static_cast<std::size_t>(i * halves + half)];
      const int base = 32 * half;
      if (w.gpu()) {
        // Lanes r with 32h + r >= n hold zeros: skip them.
        BasicBlock* write = BasicBlock::Create(ctx, "", f);
        BasicBlock* after = BasicBlock::Create(ctx, "", f);
        b.CreateCondBr(b.CreateICmpULT(w.lane(), b.getInt32(static_cast<std::uint32_t>(n - base))), write, after);
        b.SetInsertPoint(write);
        add(b.CreateAdd(b.getInt64(static_cast<std::uint64_t>(i) * n + base), b.CreateZExt(w.lane(), i64)), c);
        b.CreateBr(after);
        b.SetInsertPoint(after);
      } else {
        for (int r = 0; r < static_cast<int>(warp_size) && base + r < n; ++r)
          add(b.getInt64(static_cast<std::uint64_t>(i) * n + base + r), b.CreateExtractElement(c, r));
      }
    }
}

// The body for one program: count this warp's indices into counts[program * n * n ...].
// Leaves the builder at the end of its last block (the caller branches on).
void emit_program_counts(IRBuilder<>& b, Function* f, const Warp& w, const mixer::Program& p, std::size_t index,
                         bool exact, const KernelArgs& a, Value* wfirst, Value* wend) {
  llvm::LLVMContext& ctx = b.getContext();
  Type* i32 = b.getInt32Ty();
  Type* i64 = b.getInt64Ty();
  const int n = p.width();
  const bool narrow = n <= 32;
  Type* word = narrow ? i32 : i64;
  const int halves = narrow ? 1 : 2;  // 32-bit words transposed per difference
  const auto cells = static_cast<std::size_t>(n) * static_cast<std::size_t>(halves);

  // Loop over it = wfirst, wfirst + 32, ... < wend with one counter per (flip, half): lane
  // r of counter (i, h) counts flips of output bit 32h + r when input bit i flips.
  BasicBlock* pre = b.GetInsertBlock();
  BasicBlock* head = BasicBlock::Create(ctx, "p" + std::to_string(index) + ".head", f);
  BasicBlock* body = BasicBlock::Create(ctx, "p" + std::to_string(index) + ".body", f);
  BasicBlock* exit = BasicBlock::Create(ctx, "p" + std::to_string(index) + ".exit", f);
  b.CreateBr(head);
  b.SetInsertPoint(head);
  llvm::PHINode* it = b.CreatePHI(i64, 2, "it");
  it->addIncoming(wfirst, pre);
  std::vector<llvm::PHINode*> phis;
  std::vector<Value*> counters;
  for (std::size_t c = 0; c < cells; ++c) {
    phis.push_back(b.CreatePHI(w.type(i32), 2));
    phis.back()->addIncoming(w.constant(i32, 0), pre);
    counters.push_back(phis.back());
  }
  b.CreateCondBr(b.CreateICmpULT(it, wend), body, exit);

  b.SetInsertPoint(body);
  Value* idx = b.CreateAdd(w.splat(it), b.CreateZExt(w.lane(), w.type(i64)));
  Value* valid = b.CreateICmpULT(idx, w.splat(wend));
  Value* x = exact ? idx : b.CreateAnd(sample_input(b, w, w.splat(a.seed), idx), w.constant(i64, p.mask()));
  if (narrow) x = b.CreateTrunc(x, w.type(word));
  Value* h = emit_mix(b, x, p, true);
  auto count = [&](int i, Value* d, unsigned weight, unsigned same_at) {
    d = b.CreateSelect(valid, d, w.constant(word, 0));
    for (int half = 0; half < halves; ++half) {
      Value* part = narrow ? d : b.CreateTrunc(b.CreateLShr(d, w.constant(i64, 32u * half)), w.type(i32));
      Value* bits = b.CreateIntrinsic(llvm::Intrinsic::ctpop, {w.type(i32)}, {transpose(b, w, part, same_at)});
      if (weight == 2) bits = b.CreateShl(bits, w.constant(i32, 1));
      Value*& c = counters[static_cast<std::size_t>(i * halves + half)];
      c = b.CreateAdd(c, bits);
    }
  };
  for (int i = 0; i < n; ++i) {
    const std::uint64_t bit = std::uint64_t{1} << i;
    // A block per input bit: instruction selection is superlinear in block size, and one
    // block for all 64 bits of a wide program took minutes to compile for the host.
    BasicBlock* flip = BasicBlock::Create(ctx, "", f);
    b.CreateBr(flip);
    b.SetInsertPoint(flip);
    if (exact && i < 5) {
      // The partner x ^ 2^i is lane l ^ 2^i of this warp (indices are 32-aligned): take its
      // hash. Both lanes of the pair count it: each pair from both sides, as on the CPU.
      count(i, b.CreateXor(h, w.shuffle_xor(h, static_cast<unsigned>(bit))), 1, static_cast<unsigned>(bit));
    } else if (exact) {
      // Bit i of x is the same in all 32 lanes. Pairs are counted once, from the side with
      // bit i clear, with weight 2 (the count from both sides).
      BasicBlock* from = b.GetInsertBlock();
      BasicBlock* take = BasicBlock::Create(ctx, "", f);
      BasicBlock* join = BasicBlock::Create(ctx, "", f);
      b.CreateCondBr(b.CreateICmpEQ(b.CreateAnd(it, b.getInt64(bit)), b.getInt64(0)), take, join);
      b.SetInsertPoint(take);
      std::vector<Value*> before(counters.begin() + i * halves, counters.begin() + (i + 1) * halves);
      count(i, b.CreateXor(h, emit_mix(b, b.CreateXor(x, w.constant(word, bit)), p, true)), 2, 0);
      BasicBlock* taken = b.GetInsertBlock();
      b.CreateBr(join);
      b.SetInsertPoint(join);
      for (int half = 0; half < halves; ++half) {
        Value*& c = counters[static_cast<std::size_t>(i * halves + half)];
        llvm::PHINode* merged = b.CreatePHI(w.type(i32), 2);
        merged->addIncoming(before[static_cast<std::size_t>(half)], from);
        merged->addIncoming(c, taken);
        c = merged;
      }
    } else {
      count(i, b.CreateXor(h, emit_mix(b, b.CreateXor(x, w.constant(word, bit)), p, true)), 1, 0);
    }
  }
  Value* next = b.CreateAdd(it, b.getInt64(warp_size));
  it->addIncoming(next, b.GetInsertBlock());
  for (std::size_t c = 0; c < cells; ++c) phis[c]->addIncoming(counters[c], b.GetInsertBlock());
  b.CreateBr(head);

  // Lane counters stay below 2^32: a trip adds at most 64, and per_warp <= 2^30 allows
  // 2^25 trips.
  b.SetInsertPoint(exit);
  emit_count_writes(b, f, w, a, n, halves, std::vector<Value*>(phis.begin(), phis.end()));
}

// Bit-sliced column sums, carry-save (Harley and Seal's popcount): after add() of K lane
// words, plane k holds bit k of each bit position's count of set words. A full adder
// retires a word for two logic ops (sum = a ^ b ^ c, carry = majority: one LOP3 each in
// SASS), against a transpose of five shuffles per word when counting word by word.
class ColumnSums {
 public:
  explicit ColumnSums(IRBuilder<>& b) : b_(b) {}
  void add(Value* word) { push(0, word); }
  // Settles pending pairs with half adders; nullptr for a plane no word reached.
  std::vector<Value*> planes() {
    std::vector<Value*> out;
    for (std::size_t k = 0; k < levels_.size(); ++k) {
      std::vector<Value*>& level = levels_[k];
      if (level.size() == 2) {
        Value* x = level[0];
        Value* y = level[1];
        level = {b_.CreateXor(x, y)};
        push(k + 1, b_.CreateAnd(x, y));
      }
      out.push_back(level.empty() ? nullptr : level.front());
    }
    while (!out.empty() && !out.back()) out.pop_back();
    return out;
  }

 private:
  void push(std::size_t k, Value* word) {
    if (k >= levels_.size()) throw std::logic_error("column sums: more than 2^7 words (a bug)");
    std::vector<Value*>& level = levels_[k];
    level.push_back(word);
    if (level.size() < 3) return;
    Value* x = level[0];
    Value* y = level[1];
    Value* z = level[2];
    Value* xy = b_.CreateXor(x, y);
    level = {b_.CreateXor(xy, z)};
    push(k + 1, b_.CreateOr(b_.CreateAnd(x, y), b_.CreateAnd(xy, z)));
  }

  IRBuilder<>& b_;
  std::array<std::vector<Value*>, 8> levels_;  // words of weight 2^k awaiting adders
};

// The tiled counts (CountKernelOptions): per trip, lane l takes the T indices
// it + 32 t + l. Their words (difference words of one input bit, one per t) go into
// ColumnSums, whose planes are transposed and popcounted once per (tile, input bit).
// - Exact: input bit i's partner of input t is, for i < 5, lane l ^ 2^i's hash of the same
//   t (a shuffle); for 5 <= i < 5 + log2 T, this lane's hash of t ^ 2^(i - 5); above that,
//   a fresh hash, on the half of the tiles whose bit i is clear. Pairs inside the tile and
//   above it are counted once with weight 2, as in the direct kernel. Needs tile-aligned
//   first, end and per_warp (exact_granule) and 2^n >= 32 T.
// - Sampled: every partner is a fresh hash; indices at or past the warp's end (the last
//   tile may be cut anywhere) count nothing.
// The counters live in a stack array: the input bits whose partners are hashed fresh are
// a loop (one hashing body instead of one per bit), which indexes them at run time.
void emit_program_counts_tiled(IRBuilder<>& b, Function* f, const Warp& w, const mixer::Program& p, std::size_t index,
                               unsigned tile, bool exact, const KernelArgs& a, Value* wfirst, Value* wend) {
  llvm::LLVMContext& ctx = b.getContext();
  Type* i32 = b.getInt32Ty();
  Type* i64 = b.getInt64Ty();
  Type* lanes = w.type(i32);
  const int n = p.width();
  const bool narrow = n <= 32;
  Type* word = w.type(narrow ? i32 : i64);
  const int halves = narrow ? 1 : 2;
  // Input bits below `fresh` find their partners at hand (exact only).
  const int fresh = exact ? std::min(n, 5 + std::countr_zero(tile)) : 0;
  const std::string tag = "p" + std::to_string(index);

  auto counter = [&](Value* cell) { return b.CreateGEP(lanes, a.counters, cell); };
  for (int c = 0; c < n * halves; ++c)
    b.CreateStore(w.constant(i32, 0), counter(b.getInt32(static_cast<std::uint32_t>(c))));

  BasicBlock* pre = b.GetInsertBlock();
  BasicBlock* head = BasicBlock::Create(ctx, tag + ".head", f);
  BasicBlock* body = BasicBlock::Create(ctx, tag + ".body", f);
  BasicBlock* exit = BasicBlock::Create(ctx, tag + ".exit", f);
  b.CreateBr(head);
  b.SetInsertPoint(head);
  llvm::PHINode* it = b.CreatePHI(i64, 2, "it");
  it->addIncoming(wfirst, pre);
  b.CreateCondBr(b.CreateICmpULT(it, wend), body, exit);

  b.SetInsertPoint(body);
  Value* lane = b.CreateZExt(w.lane(), w.type(i64));
  std::vector<Value*> x, h, valid;
  for (unsigned t = 0; t < tile; ++t) {
    Value* idx = b.CreateAdd(w.splat(b.CreateAdd(it, b.getInt64(32ull * t))), lane);
    Value* in = exact ? idx : b.CreateAnd(sample_input(b, w, w.splat(a.seed), idx), w.constant(i64, p.mask()));
    x.push_back(narrow ? b.CreateTrunc(in, word) : in);
    h.push_back(emit_mix(b, x.back(), p, true));
    if (!exact) valid.push_back(b.CreateICmpULT(idx, w.splat(wend)));
  }
  // counters[i * halves + half] += the column sums' counts, times 2^weight_shift.
  auto settle = [&](Value* i, ColumnSums& sums, unsigned weight_shift, unsigned same_at) {
    const std::vector<Value*> planes = sums.planes();
    for (int half = 0; half < halves; ++half) {
      Value* total = w.constant(i32, 0);
      for (std::size_t k = 0; k < planes.size(); ++k) {
        if (!planes[k]) continue;
        Value* part = narrow ? planes[k] : b.CreateTrunc(b.CreateLShr(planes[k], w.constant(i64, 32u * half)), lanes);
        Value* bits = b.CreateIntrinsic(llvm::Intrinsic::ctpop, {lanes}, {transpose(b, w, part, same_at)});
        total = b.CreateAdd(total, b.CreateShl(bits, w.constant(i32, k + weight_shift)));
      }
      Value* at = counter(b.CreateAdd(b.CreateMul(i, b.getInt32(static_cast<std::uint32_t>(halves))),
                                      b.getInt32(static_cast<std::uint32_t>(half))));
      b.CreateStore(b.CreateAdd(b.CreateLoad(lanes, at), total), at);
    }
  };
  for (int i = 0; i < fresh; ++i) {
    // A block per input bit, as in the direct kernel (instruction selection is superlinear).
    BasicBlock* flip = BasicBlock::Create(ctx, "", f);
    b.CreateBr(flip);
    b.SetInsertPoint(flip);
    ColumnSums sums(b);
    if (i < 5) {
      const unsigned bit = 1u << i;
      for (unsigned t = 0; t < tile; ++t) sums.add(b.CreateXor(h[t], w.shuffle_xor(h[t], bit)));
      // Both lanes of a pair hold the same words, so the same planes (see transpose).
      settle(b.getInt32(static_cast<std::uint32_t>(i)), sums, 0, bit);
    } else {
      const unsigned step = 1u << (i - 5);
      for (unsigned t = 0; t < tile; ++t)
        if ((t & step) == 0) sums.add(b.CreateXor(h[t], h[t | step]));
      settle(b.getInt32(static_cast<std::uint32_t>(i)), sums, 1, 0);
    }
  }
  if (n > fresh) {
    // for (i = fresh; i < n; ++i): hash the partners (exact: if bit i of the tile is clear).
    BasicBlock* from = b.GetInsertBlock();
    BasicBlock* loop = BasicBlock::Create(ctx, tag + ".bit", f);
    BasicBlock* hash = BasicBlock::Create(ctx, tag + ".partners", f);
    BasicBlock* next = BasicBlock::Create(ctx, tag + ".next", f);
    BasicBlock* done = BasicBlock::Create(ctx, tag + ".tiled", f);
    b.CreateBr(loop);
    b.SetInsertPoint(loop);
    llvm::PHINode* i = b.CreatePHI(i32, 2, "i");
    i->addIncoming(b.getInt32(static_cast<std::uint32_t>(fresh)), from);
    if (exact) {
      Value* bit = b.CreateShl(b.getInt64(1), b.CreateZExt(i, i64));
      b.CreateCondBr(b.CreateICmpEQ(b.CreateAnd(it, bit), b.getInt64(0)), hash, next);
    } else {
      b.CreateBr(hash);
    }
    b.SetInsertPoint(hash);
    Value* shift = narrow ? i : b.CreateZExt(i, i64);
    Value* flip = w.splat(b.CreateShl(narrow ? b.getInt32(1) : b.getInt64(1), shift));
    ColumnSums sums(b);
    for (unsigned t = 0; t < tile; ++t) {
      Value* d = b.CreateXor(h[t], emit_mix(b, b.CreateXor(x[t], flip), p, true));
      sums.add(exact ? d : b.CreateSelect(valid[t], d, llvm::Constant::getNullValue(word)));
    }
    settle(i, sums, exact ? 1 : 0, 0);
    b.CreateBr(next);
    b.SetInsertPoint(next);
    Value* i_next = b.CreateAdd(i, b.getInt32(1));
    i->addIncoming(i_next, next);
    b.CreateCondBr(b.CreateICmpULT(i_next, b.getInt32(static_cast<std::uint32_t>(n))), loop, done);
    b.SetInsertPoint(done);
  }
  it->addIncoming(b.CreateAdd(it, b.getInt64(32ull * tile)), b.GetInsertBlock());
  b.CreateBr(head);

  // Lane counters stay below 2^32: an index adds at most 2 per input bit (exact pairs have
  // weight 2), and per_warp <= 2^30.
  b.SetInsertPoint(exit);
  std::vector<Value*> cells;
  for (int c = 0; c < n * halves; ++c)
    cells.push_back(b.CreateLoad(lanes, counter(b.getInt32(static_cast<std::uint32_t>(c)))));
  emit_count_writes(b, f, w, a, n, halves, cells);
}

Function* emit_count_kernel(llvm::Module& m, std::span<const mixer::Program> programs, CountTarget target, bool exact,
                            const CountKernelOptions& options, const std::string& name, const std::string& cpu,
                            const std::string& features) {
  llvm::LLVMContext& ctx = m.getContext();
  IRBuilder<> b(ctx);
  Type* i32 = b.getInt32Ty();
  Type* i64 = b.getInt64Ty();
  const bool gpu = target == CountTarget::nvptx;
  Type* ptr = gpu ? llvm::PointerType::get(ctx, 1) : llvm::PointerType::getUnqual(ctx);
  std::vector<Type*> params{ptr, i64, i64, i64, i64};
  if (!gpu) params.insert(params.end(), {i64, i32});  // the host passes warp and program
  Function* f = Function::Create(llvm::FunctionType::get(b.getVoidTy(), params, false),
                                 Function::ExternalLinkage, name, m);
  f->addFnAttr(llvm::Attribute::NoUnwind);
  if (gpu) {
    f->setCallingConv(llvm::CallingConv::PTX_Kernel);
    llvm::Metadata* annotation[] = {llvm::ValueAsMetadata::get(f), llvm::MDString::get(ctx, "kernel"),
                                    llvm::ValueAsMetadata::get(b.getInt32(1))};
    m.getOrInsertNamedMetadata("nvvm.annotations")->addOperand(llvm::MDNode::get(ctx, annotation));
  } else {
    f->addFnAttr("target-cpu", cpu);
    if (!features.empty()) f->addFnAttr("target-features", features);
  }
  b.SetInsertPoint(BasicBlock::Create(ctx, "entry", f));
  Warp w(b, target);
  KernelArgs a{f->getArg(0), f->getArg(1), f->getArg(2), f->getArg(3), f->getArg(4), nullptr, nullptr};
  if (gpu) {
    auto sreg = [&](llvm::Intrinsic::ID id) { return b.CreateIntrinsic(id, {}, {}); };
    Value* tid = sreg(llvm::Intrinsic::nvvm_read_ptx_sreg_tid_x);
    Value* thread = b.CreateAdd(b.CreateMul(b.CreateZExt(sreg(llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_x), i64),
                                            b.CreateZExt(sreg(llvm::Intrinsic::nvvm_read_ptx_sreg_ntid_x), i64)),
                                b.CreateZExt(tid, i64));
    a.warp = b.CreateLShr(thread, b.getInt64(5));
    a.program = sreg(llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_y);
    w.set_lane(b.CreateAnd(tid, b.getInt32(warp_size - 1)));
  } else {
    a.warp = f->getArg(5);
    a.program = f->getArg(6);
    std::vector<llvm::Constant*> lanes;
    for (unsigned l = 0; l < warp_size; ++l) lanes.push_back(b.getInt32(l));
    w.set_lane(llvm::ConstantVector::get(lanes));
  }
  // This warp's indices; a warp past the end returns at once (uniformly).
  Value* wfirst = b.CreateAdd(a.first, b.CreateMul(a.warp, a.per_warp));
  Value* wlast = b.CreateAdd(wfirst, a.per_warp);
  Value* wend = b.CreateSelect(b.CreateICmpULT(wlast, a.end), wlast, a.end);
  BasicBlock* done = BasicBlock::Create(ctx, "done", f);
  BasicBlock* dispatch = BasicBlock::Create(ctx, "dispatch", f);
  b.CreateCondBr(b.CreateICmpULT(wfirst, a.end), dispatch, done);
  b.SetInsertPoint(dispatch);
  llvm::SwitchInst* sw = b.CreateSwitch(a.program, done, static_cast<unsigned>(programs.size()));
  for (std::size_t k = 0; k < programs.size(); ++k) {
    BasicBlock* start = BasicBlock::Create(ctx, "program" + std::to_string(k), f);
    sw->addCase(b.getInt32(static_cast<std::uint32_t>(k)), start);
    b.SetInsertPoint(start);
    const mixer::Program& p = programs[k];
    if (exact ? exact_granule(p.width(), options) > warp_size : options.tile != 0) {
      if (!a.counters) {
        IRBuilder<> entry(&f->getEntryBlock(), f->getEntryBlock().begin());
        const auto cells = static_cast<std::uint32_t>(p.width() * (p.width() <= 32 ? 1 : 2));
        a.counters = entry.CreateAlloca(w.type(i32), entry.getInt32(cells), "counters");
      }
      emit_program_counts_tiled(b, f, w, p, k, options.tile, exact, a, wfirst, wend);
    } else {
      emit_program_counts(b, f, w, p, k, exact, a, wfirst, wend);
    }
    b.CreateBr(done);
  }
  b.SetInsertPoint(done);
  b.CreateRetVoid();
  return f;
}

}  // namespace

void check_kernel_options(const CountKernelOptions& options) {
  const unsigned t = options.tile;
  if (t != 0 && t != 8 && t != 16 && t != 32)
    throw std::invalid_argument("count kernels: tile must be 0, 8, 16 or 32, not " + std::to_string(t));
}

std::uint64_t exact_granule(int width, const CountKernelOptions& options) {
  check_kernel_options(options);
  const std::uint64_t tiled = std::uint64_t{warp_size} * options.tile;
  return options.tile != 0 && width <= 32 && (std::uint64_t{1} << width) >= tiled ? tiled : warp_size;
}

std::uint64_t sampled_granule(const CountKernelOptions& options) {
  check_kernel_options(options);
  return std::uint64_t{warp_size} * std::max(1u, options.tile);
}

void emit_count_kernels_ir(llvm::Module& module, std::span<const mixer::Program> programs, CountTarget target,
                           const CountKernelOptions& options, CountKernels which, const std::string& cpu,
                           const std::string& features) {
  check_kernel_options(options);
  if (programs.empty()) throw std::invalid_argument("count kernels: no programs");
  const int n = programs.front().width();
  for (const mixer::Program& p : programs)
    if (p.width() != n) throw std::invalid_argument("count kernels: a batch holds programs of one width");
  if (which == CountKernels::exact && n > 32)
    throw std::invalid_argument("count kernels: exact counts need a width <= 32, not " + std::to_string(n));
  if (which != CountKernels::sampled && n <= 32)
    emit_count_kernel(module, programs, target, true, options, count_kernel_exact, cpu, features);
  if (which != CountKernels::exact)
    emit_count_kernel(module, programs, target, false, options, count_kernel_sampled, cpu, features);
}

}  // namespace mixforge::jit
