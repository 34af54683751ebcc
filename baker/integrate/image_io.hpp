#pragma once
// Lightmap and preview images: linear OpenEXR (float RGB) and tone-mapped 8-bit PNG.
#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <vector>

#include "baker/scene/vec3.hpp"

namespace mixforge::baker {

struct Image {
  std::uint32_t width = 0, height = 0;
  std::vector<Vec3> pixels;  // row-major, top row first
};

class ImageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

void write_exr(const std::filesystem::path& path, const Image& image);
Image read_exr(const std::filesystem::path& path);  // R, G, B channels as float

// Exposure * value, then x / (1 + x) per channel (Reinhard) and sRGB encoding.
void write_png(const std::filesystem::path& path, const Image& image, float exposure);
// An exposure that maps the 95th percentile of the pixels' luminance (ignoring zeros) to 1.
float auto_exposure(const std::vector<Vec3>& pixels);

}  // namespace mixforge::baker
