// A tiny dependency-free PNG writer for the apps' pictures (PIC charge
// density, broad-phase and LBVH views): 8-bit RGB, no interlace, the image
// data in "stored" (uncompressed) deflate blocks inside a zlib stream. Files
// are as large as the pixels (3 bytes each plus a little), which is fine for
// pictures of at most a few megapixels, and every PNG reader opens them.
#pragma once
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace radix_apps::png {

/// Encodes a width x height RGB8 image (rows top to bottom, 3 bytes per
/// pixel, rgb.size() == 3 * width * height) as a complete PNG file.
/// Throws std::invalid_argument on a size mismatch or a zero/oversized
/// dimension.
std::vector<std::uint8_t> encode_rgb8(std::uint32_t width, std::uint32_t height, std::span<const std::uint8_t> rgb);

/// encode_rgb8, written to `path`. Throws std::runtime_error (naming the path)
/// when the file cannot be written completely.
void write_rgb8(const std::string& path, std::uint32_t width, std::uint32_t height,
                std::span<const std::uint8_t> rgb);

/// The checksums PNG needs, exposed for tests: CRC-32 (ISO 3309, as in PNG
/// chunks and gzip; continue a running CRC by passing the previous value) and
/// Adler-32 (the zlib trailer).
std::uint32_t crc32(std::span<const std::uint8_t> data, std::uint32_t crc = 0);
std::uint32_t adler32(std::span<const std::uint8_t> data, std::uint32_t adler = 1);

}  // namespace radix_apps::png
