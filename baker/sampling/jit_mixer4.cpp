#include "baker/sampling/jit_mixer4.hpp"

#include <stdexcept>
#include <string>

#include "jit/engine.hpp"

namespace mixforge::baker {
namespace {

class JitMixer4 final : public Mixer4 {
 public:
  JitMixer4(std::vector<MixerInfo> lanes, std::shared_ptr<jit::Engine> engine)
      : lanes_(std::move(lanes)), engine_(std::move(engine)) {
    std::vector<mixer::Program> programs;
    for (const MixerInfo& l : lanes_) programs.push_back(l.program);
    auto kernels = engine_->compile_batch(programs, jit::parts_apply);
    for (int l = 0; l < 4; ++l) kernels_[l] = kernels[l];
  }
  void apply(const Lanes* in, Lanes* out, std::size_t n) const override {
    thread_local std::vector<std::uint64_t> buf;
    buf.resize(n);
    for (int l = 0; l < 4; ++l) {
      for (std::size_t k = 0; k < n; ++k) buf[k] = in[k][l];
      kernels_[l]->apply(buf.data(), buf.data(), n);
      for (std::size_t k = 0; k < n; ++k) out[k][l] = static_cast<std::uint32_t>(buf[k]);
    }
  }
  const std::vector<MixerInfo>& lanes() const override { return lanes_; }
  std::string origin() const override { return "jit"; }

 private:
  std::vector<MixerInfo> lanes_;
  std::shared_ptr<jit::Engine> engine_;
  std::shared_ptr<const jit::Kernel> kernels_[4];
};

}  // namespace

std::vector<MixerInfo> complete_lanes(std::vector<MixerInfo> lanes) {
  if (lanes.empty() || lanes.size() > 4)
    throw std::invalid_argument("a mixer family has 1 to 4 programs, got " +
                                std::to_string(lanes.size()));
  for (std::size_t i = 0; i < lanes.size(); ++i)
    if (lanes[i].program.width() != 32)
      throw std::invalid_argument("mixer " + std::to_string(i + 1) + " (" + lanes[i].program.id() +
                                  ") is " + std::to_string(lanes[i].program.width()) +
                                  " bits wide; the baker's lanes are 32-bit bijections");
  while (lanes.size() < 4) lanes.push_back(lanes.back());
  return lanes;
}

std::shared_ptr<const Mixer4> make_jit_mixer4(std::vector<MixerInfo> lanes,
                                              std::shared_ptr<jit::Engine> engine) {
  return std::make_shared<JitMixer4>(complete_lanes(std::move(lanes)), std::move(engine));
}

}  // namespace mixforge::baker
