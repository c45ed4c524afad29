// Tests of the PNG writer without any PNG library: the checksums against
// published check values, then the file's structure walked byte by byte
// (signature, chunk lengths and CRCs, IHDR fields, the zlib header, the
// stored deflate blocks, which decode trivially, and the Adler-32 trailer),
// and the decoded scanlines compared with the pixels written.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <vector>

#include "png.hpp"

namespace png = radix_apps::png;

namespace {

int failures = 0;
#define EXPECT(cond)                                                           \
  do {                                                                         \
    if (!(cond)) {                                                             \
      ++failures;                                                              \
      std::fprintf(stderr, "FAILED: %s (%s:%d)\n", #cond, __FILE__, __LINE__); \
    }                                                                          \
  } while (0)

std::span<const std::uint8_t> bytes_of(const char* s) {
  return {reinterpret_cast<const std::uint8_t*>(s), std::char_traits<char>::length(s)};
}

// Bit-at-a-time CRC-32, independent of the writer's table-driven one.
std::uint32_t slow_crc(const std::uint8_t* p, std::size_t n) {
  std::uint32_t c = 0xFFFFFFFFu;
  for (std::size_t i = 0; i < n; ++i) {
    c ^= p[i];
    for (int k = 0; k < 8; ++k) c = (c >> 1) ^ (0xEDB88320u & (0u - (c & 1)));
  }
  return ~c;
}

std::uint32_t be32(const std::vector<std::uint8_t>& f, std::size_t at) {
  return (std::uint32_t(f[at]) << 24) | (std::uint32_t(f[at + 1]) << 16) | (std::uint32_t(f[at + 2]) << 8) | f[at + 3];
}

// Walks a PNG produced by the writer; returns the decoded RGB pixels (empty on a structural error).
std::vector<std::uint8_t> decode_stored(const std::vector<std::uint8_t>& f, std::uint32_t w, std::uint32_t h) {
  const std::uint8_t sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
  EXPECT(f.size() > 8 && std::equal(sig, sig + 8, f.begin()));
  std::size_t at = 8;
  std::vector<std::string> types;
  std::vector<std::uint8_t> idat;
  while (at + 12 <= f.size()) {
    const std::uint32_t len = be32(f, at);
    if (at + 12 + len > f.size()) {
      EXPECT(!"chunk runs past the end of the file");
      return {};
    }
    const std::string type(f.begin() + at + 4, f.begin() + at + 8);
    EXPECT(be32(f, at + 8 + len) == slow_crc(f.data() + at + 4, 4 + len));
    if (type == "IHDR") {
      EXPECT(len == 13);
      EXPECT(be32(f, at + 8) == w);
      EXPECT(be32(f, at + 12) == h);
      EXPECT(f[at + 16] == 8 && f[at + 17] == 2 && f[at + 18] == 0 && f[at + 19] == 0 && f[at + 20] == 0);
    }
    if (type == "IDAT") idat.insert(idat.end(), f.begin() + at + 8, f.begin() + at + 8 + len);
    if (type == "IEND") EXPECT(len == 0 && be32(f, at + 8) == 0xAE426082u);  // the CRC every IEND has
    types.push_back(type);
    at += 12 + len;
  }
  EXPECT(at == f.size());
  EXPECT(types.size() >= 3 && types.front() == "IHDR" && types.back() == "IEND");

  // zlib: header, stored blocks, Adler-32.
  EXPECT(idat.size() >= 2 + 5 + 4);
  if (idat.size() < 11) return {};
  EXPECT((idat[0] & 0x0F) == 8);                          // deflate
  EXPECT(((std::uint32_t(idat[0]) << 8) | idat[1]) % 31 == 0);  // header check bits
  EXPECT((idat[1] & 0x20) == 0);                          // no preset dictionary
  std::vector<std::uint8_t> raw;
  std::size_t p = 2;
  bool final = false;
  while (!final && p + 5 <= idat.size()) {
    final = idat[p] & 1;
    EXPECT(((idat[p] >> 1) & 3) == 0);  // stored
    const std::uint32_t len = idat[p + 1] | (idat[p + 2] << 8);
    const std::uint32_t nlen = idat[p + 3] | (idat[p + 4] << 8);
    EXPECT((len ^ nlen) == 0xFFFF);
    p += 5;
    if (p + len > idat.size()) return {};
    raw.insert(raw.end(), idat.begin() + p, idat.begin() + p + len);
    p += len;
  }
  EXPECT(final);
  EXPECT(p + 4 == idat.size());
  if (p + 4 != idat.size()) return {};
  std::vector<std::uint8_t> tail(idat.begin() + p, idat.end());
  EXPECT(be32(tail, 0) == png::adler32(raw));

  // Scanlines: filter byte 0, then the pixels.
  const std::size_t row = 1 + 3ull * w;
  EXPECT(raw.size() == row * h);
  if (raw.size() != row * h) return {};
  std::vector<std::uint8_t> rgb;
  for (std::uint32_t y = 0; y < h; ++y) {
    EXPECT(raw[y * row] == 0);
    rgb.insert(rgb.end(), raw.begin() + y * row + 1, raw.begin() + (y + 1) * row);
  }
  return rgb;
}

std::vector<std::uint8_t> pattern(std::uint32_t w, std::uint32_t h) {
  std::vector<std::uint8_t> rgb(3ull * w * h);
  for (std::size_t i = 0; i < rgb.size(); ++i) rgb[i] = std::uint8_t(i * 131 + (i >> 7));
  return rgb;
}

}  // namespace

int main() {
  // Published check values: CRC-32 of "123456789" (the CRC catalogue's check),
  // Adler-32 of "Wikipedia" (RFC 1950's algorithm, widely quoted example).
  EXPECT(png::crc32(bytes_of("123456789")) == 0xCBF43926u);
  EXPECT(png::crc32(bytes_of("")) == 0u);
  EXPECT(png::crc32(bytes_of("6789"), png::crc32(bytes_of("12345"))) == 0xCBF43926u);  // running CRC
  EXPECT(png::adler32(bytes_of("Wikipedia")) == 0x11E60398u);
  EXPECT(png::adler32(bytes_of("")) == 1u);
  {
    // Long input: the modulo reduction every 5552 bytes must not change the result.
    std::vector<std::uint8_t> ff(100000, 0xFF);
    std::uint32_t a = 1, b = 0;
    for (auto v : ff) {
      a = (a + v) % 65521;
      b = (b + a) % 65521;
    }
    EXPECT(png::adler32(ff) == ((b << 16) | a));
    EXPECT(png::crc32(ff) == slow_crc(ff.data(), ff.size()));
  }

  // Images: 1x1, odd sizes, and one whose data spans several 65535-byte stored blocks.
  const std::uint32_t sizes[][2] = {{1, 1}, {3, 2}, {17, 5}, {300, 250}, {65535 / 3 + 1, 1}};
  for (auto [w, h] : sizes) {
    const auto rgb = pattern(w, h);
    const auto file = png::encode_rgb8(w, h, rgb);
    EXPECT(decode_stored(file, w, h) == rgb);
  }

  // write_rgb8 writes exactly encode_rgb8's bytes; a bad path or a bad buffer throws.
  {
    const auto dir = std::filesystem::temp_directory_path();
    const auto path = (dir / ("radix_test_png_" + std::to_string(::getpid()) + ".png")).string();
    const auto rgb = pattern(40, 30);
    png::write_rgb8(path, 40, 30, rgb);
    std::ifstream in(path, std::ios::binary);
    std::vector<std::uint8_t> back((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT(back == png::encode_rgb8(40, 30, rgb));
    std::filesystem::remove(path);

    bool threw = false;
    try {
      png::write_rgb8("/nonexistent-dir-radix/x.png", 40, 30, rgb);
    } catch (const std::runtime_error& e) {
      threw = std::string(e.what()).find("/nonexistent-dir-radix/x.png") != std::string::npos;
    }
    EXPECT(threw);
    threw = false;
    try {
      png::encode_rgb8(41, 30, rgb);
    } catch (const std::invalid_argument&) {
      threw = true;
    }
    EXPECT(threw);
    threw = false;
    try {
      png::encode_rgb8(0, 30, {});
    } catch (const std::invalid_argument&) {
      threw = true;
    }
    EXPECT(threw);
  }

  if (failures) {
    std::fprintf(stderr, "%d check(s) failed\n", failures);
    return 1;
  }
  std::printf("png writer: all checks passed\n");
  return 0;
}
