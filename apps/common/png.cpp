// PNG writer: signature, IHDR, one IDAT holding a zlib stream of stored
// deflate blocks, IEND (PNG spec 1.2; zlib RFC 1950; deflate RFC 1951 §3.2.4).
#include "png.hpp"

#include <algorithm>
#include <array>
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <string>

namespace radix_apps::png {
namespace {

constexpr std::array<std::uint32_t, 256> make_crc_table() {
  std::array<std::uint32_t, 256> t{};
  for (std::uint32_t n = 0; n < 256; ++n) {
    std::uint32_t c = n;
    for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
    t[n] = c;
  }
  return t;
}
constexpr auto crc_table = make_crc_table();

void put_be32(std::vector<std::uint8_t>& out, std::uint32_t v) {
  out.push_back(std::uint8_t(v >> 24));
  out.push_back(std::uint8_t(v >> 16));
  out.push_back(std::uint8_t(v >> 8));
  out.push_back(std::uint8_t(v));
}

// A chunk: length, type, data, CRC over type + data.
void put_chunk(std::vector<std::uint8_t>& out, const char type[4], std::span<const std::uint8_t> data) {
  put_be32(out, std::uint32_t(data.size()));
  const std::size_t type_at = out.size();
  out.insert(out.end(), type, type + 4);
  out.insert(out.end(), data.begin(), data.end());
  put_be32(out, crc32(std::span(out).subspan(type_at, 4 + data.size())));
}

}  // namespace

std::uint32_t crc32(std::span<const std::uint8_t> data, std::uint32_t crc) {
  crc = ~crc;
  for (std::uint8_t b : data) crc = crc_table[(crc ^ b) & 0xFF] ^ (crc >> 8);
  return ~crc;
}

std::uint32_t adler32(std::span<const std::uint8_t> data, std::uint32_t adler) {
  constexpr std::uint32_t mod = 65521;
  std::uint32_t a = adler & 0xFFFF, b = adler >> 16;
  // 5552 bytes is the longest run whose sums cannot overflow 32 bits (zlib's NMAX).
  for (std::size_t i = 0; i < data.size();) {
    const std::size_t end = std::min(data.size(), i + 5552);
    for (; i < end; ++i) {
      a += data[i];
      b += a;
    }
    a %= mod;
    b %= mod;
  }
  return (b << 16) | a;
}

std::vector<std::uint8_t> encode_rgb8(std::uint32_t width, std::uint32_t height, std::span<const std::uint8_t> rgb) {
  // PNG limits dimensions to 2^31 - 1; one IDAT chunk limits the stream to
  // 2^31 - 1 bytes, so keep the raw image well below that.
  if (width == 0 || height == 0 || width > 0x7FFFFFFFu || height > 0x7FFFFFFFu)
    throw std::invalid_argument("png: image dimensions must be 1..2^31-1");
  const std::uint64_t row = 1 + 3ull * width;  // filter byte + pixels
  const std::uint64_t raw_bytes = row * height;
  if (raw_bytes > (1ull << 30)) throw std::invalid_argument("png: image larger than 1 GiB of pixels");
  if (rgb.size() != 3ull * width * height)
    throw std::invalid_argument("png: pixel buffer has " + std::to_string(rgb.size()) + " bytes, expected " +
                                std::to_string(3ull * width * height));

  // Scanlines with filter type 0 (none).
  std::vector<std::uint8_t> raw;
  raw.reserve(raw_bytes);
  for (std::uint32_t y = 0; y < height; ++y) {
    raw.push_back(0);
    const auto* p = rgb.data() + 3ull * width * y;
    raw.insert(raw.end(), p, p + 3ull * width);
  }

  // zlib stream: CMF 0x78 (deflate, 32K window), FLG 0x01 (check bits make
  // 0x7801 a multiple of 31, no dictionary, "fastest" level), stored blocks
  // of at most 65535 bytes, Adler-32 of the raw data, big-endian.
  std::vector<std::uint8_t> z;
  z.reserve(raw.size() + raw.size() / 65535 * 5 + 16);
  z.push_back(0x78);
  z.push_back(0x01);
  std::size_t at = 0;
  do {
    const std::size_t len = std::min<std::size_t>(65535, raw.size() - at);
    const bool final = at + len == raw.size();
    z.push_back(final ? 1 : 0);  // BFINAL, BTYPE = 00 (stored); the rest of the byte is padding
    z.push_back(std::uint8_t(len));
    z.push_back(std::uint8_t(len >> 8));
    z.push_back(std::uint8_t(~len));
    z.push_back(std::uint8_t(~len >> 8));
    z.insert(z.end(), raw.begin() + at, raw.begin() + at + len);
    at += len;
  } while (at < raw.size());
  put_be32(z, adler32(raw));

  std::vector<std::uint8_t> out = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
  std::vector<std::uint8_t> ihdr;
  put_be32(ihdr, width);
  put_be32(ihdr, height);
  ihdr.insert(ihdr.end(), {8, 2, 0, 0, 0});  // bit depth 8, colour type 2 (RGB), deflate, filter 0, no interlace
  put_chunk(out, "IHDR", ihdr);
  put_chunk(out, "IDAT", z);
  put_chunk(out, "IEND", {});
  return out;
}

void write_rgb8(const std::string& path, std::uint32_t width, std::uint32_t height,
                std::span<const std::uint8_t> rgb) {
  const auto bytes = encode_rgb8(width, height, rgb);
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> f(std::fopen(path.c_str(), "wb"), &std::fclose);
  if (!f) throw std::runtime_error("png: cannot open '" + path + "' for writing");
  const bool ok = std::fwrite(bytes.data(), 1, bytes.size(), f.get()) == bytes.size();
  // fclose flushes: a full disk shows up here, not in fwrite.
  const bool closed = std::fclose(f.release()) == 0;
  if (!ok || !closed) throw std::runtime_error("png: writing '" + path + "' failed");
}

}  // namespace radix_apps::png
