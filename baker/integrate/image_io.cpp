#include "baker/integrate/image_io.hpp"

#include <ImfChannelList.h>
#include <ImfFrameBuffer.h>
#include <ImfHeader.h>
#include <ImfInputFile.h>
#include <ImfOutputFile.h>
#include <stb_image_write.h>

#include <algorithm>
#include <cmath>

namespace mixforge::baker {
namespace {

float luminance(Vec3 c) { return 0.2126f * c.x + 0.7152f * c.y + 0.0722f * c.z; }

std::uint8_t encode(float v) {
  v = v / (1 + v);
  v = v <= 0.0031308f ? 12.92f * v : 1.055f * std::pow(v, 1 / 2.4f) - 0.055f;
  return static_cast<std::uint8_t>(std::clamp(std::lround(v * 255.0f), 0l, 255l));
}

}  // namespace

void write_exr(const std::filesystem::path& path, const Image& image) {
  try {
    Imf::Header header(static_cast<int>(image.width), static_cast<int>(image.height));
    for (const char* c : {"R", "G", "B"}) header.channels().insert(c, Imf::Channel(Imf::FLOAT));
    Imf::OutputFile file(path.c_str(), header);
    Imf::FrameBuffer fb;
    auto* base = const_cast<char*>(reinterpret_cast<const char*>(image.pixels.data()));
    const std::size_t xs = sizeof(Vec3), ys = sizeof(Vec3) * image.width;
    fb.insert("R", Imf::Slice(Imf::FLOAT, base + offsetof(Vec3, x), xs, ys));
    fb.insert("G", Imf::Slice(Imf::FLOAT, base + offsetof(Vec3, y), xs, ys));
    fb.insert("B", Imf::Slice(Imf::FLOAT, base + offsetof(Vec3, z), xs, ys));
    file.setFrameBuffer(fb);
    file.writePixels(static_cast<int>(image.height));
  } catch (const std::exception& e) {
    throw ImageError("cannot write " + path.string() + ": " + e.what());
  }
}

Image read_exr(const std::filesystem::path& path) {
  try {
    Imf::InputFile file(path.c_str());
    const Imath::Box2i dw = file.header().dataWindow();
    Image image;
    image.width = static_cast<std::uint32_t>(dw.max.x - dw.min.x + 1);
    image.height = static_cast<std::uint32_t>(dw.max.y - dw.min.y + 1);
    for (const char* c : {"R", "G", "B"})
      if (!file.header().channels().findChannel(c))
        throw ImageError(std::string("no ") + c + " channel");
    image.pixels.resize(std::size_t{image.width} * image.height);
    char* base = reinterpret_cast<char*>(image.pixels.data()) -
                 (std::ptrdiff_t(dw.min.x) + std::ptrdiff_t(dw.min.y) * image.width) * sizeof(Vec3);
    const std::size_t xs = sizeof(Vec3), ys = sizeof(Vec3) * image.width;
    Imf::FrameBuffer fb;
    fb.insert("R", Imf::Slice(Imf::FLOAT, base + offsetof(Vec3, x), xs, ys));
    fb.insert("G", Imf::Slice(Imf::FLOAT, base + offsetof(Vec3, y), xs, ys));
    fb.insert("B", Imf::Slice(Imf::FLOAT, base + offsetof(Vec3, z), xs, ys));
    file.setFrameBuffer(fb);
    file.readPixels(dw.min.y, dw.max.y);
    return image;
  } catch (const ImageError& e) {
    throw ImageError("cannot read " + path.string() + ": " + e.what());
  } catch (const std::exception& e) {
    throw ImageError("cannot read " + path.string() + ": " + e.what());
  }
}

float auto_exposure(const std::vector<Vec3>& pixels) {
  std::vector<float> l;
  l.reserve(pixels.size());
  for (const Vec3& p : pixels)
    if (luminance(p) > 0) l.push_back(luminance(p));
  if (l.empty()) return 1;
  const std::size_t k = l.size() * 95 / 100;
  std::nth_element(l.begin(), l.begin() + k, l.end());
  return l[k] > 0 ? 1 / l[k] : 1;
}

void write_png(const std::filesystem::path& path, const Image& image, float exposure) {
  std::vector<std::uint8_t> rgb(image.pixels.size() * 3);
  for (std::size_t i = 0; i < image.pixels.size(); ++i) {
    const Vec3 c = image.pixels[i] * exposure;
    rgb[3 * i] = encode(c.x);
    rgb[3 * i + 1] = encode(c.y);
    rgb[3 * i + 2] = encode(c.z);
  }
  if (!stbi_write_png(path.c_str(), static_cast<int>(image.width), static_cast<int>(image.height),
                      3, rgb.data(), static_cast<int>(image.width * 3)))
    throw ImageError("cannot write " + path.string());
}

}  // namespace mixforge::baker
