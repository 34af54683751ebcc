#include "baker/sampling/default_mixer4.hpp"

#include <nlohmann/json.hpp>

#include <stdexcept>

#include "mixer/json_form.hpp"

// The C++ that `mixforge export --target cpp --vec4` wrote for the default family;
// namespaced here so its name cannot collide with anything else.
namespace mixforge::baker::exported {
#include "baker/sampling/default_family.hpp"
}

namespace mixforge::baker {

extern const std::string_view default_family_bundle_json;

namespace {

class DefaultMixer4 final : public Mixer4 {
 public:
  DefaultMixer4() {
    const auto j = nlohmann::json::parse(default_family_bundle_json);
    for (const auto& p : j.at("programs")) {
      MixerInfo m{mixer::program_from_json(p.at("program")), -1, false};
      if (p.contains("score") && p["score"].is_object()) {
        m.chi2 = p["score"].at("chi2").get<double>();
        m.exact = p["score"].value("exact", false);
      }
      lanes_.push_back(m);
    }
    if (lanes_.size() != 4) throw std::logic_error("the default family bundle must have 4 programs");
  }
  void apply(const Lanes* in, Lanes* out, std::size_t n) const override {
    for (std::size_t k = 0; k < n; ++k) out[k] = exported::default_family(in[k]);
  }
  const std::vector<MixerInfo>& lanes() const override { return lanes_; }
  std::string origin() const override { return "compiled-in"; }

 private:
  std::vector<MixerInfo> lanes_;
};

}  // namespace

std::shared_ptr<const Mixer4> default_mixer4() {
  static const std::shared_ptr<const Mixer4> mixer = std::make_shared<DefaultMixer4>();
  return mixer;
}

std::string_view default_family_bundle() { return default_family_bundle_json; }

}  // namespace mixforge::baker
