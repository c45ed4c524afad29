// A small RGB8 drawing surface for the apps' pictures and plots: pixels,
// lines, rectangles and a 5x7 bitmap font (digits, capital letters, a few
// signs; lower-case letters are drawn as capitals). Pair it with png.hpp:
//   radix_apps::png::write_rgb8(path, c.width, c.height, c.rgb);
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <string_view>
#include <vector>

namespace radix_apps {

struct color {
  std::uint8_t r, g, b;
};

class canvas {
 public:
  canvas(std::uint32_t w, std::uint32_t h, color bg) : width(w), height(h), rgb(std::size_t(w) * h * 3) {
    for (std::size_t i = 0; i < std::size_t(w) * h; ++i) set_index(i, bg);
  }
  std::uint32_t width, height;
  std::vector<std::uint8_t> rgb;

  void set(int x, int y, color c) {
    if (x < 0 || y < 0 || x >= int(width) || y >= int(height)) return;
    set_index(std::size_t(y) * width + x, c);
  }
  /// Blends c over the pixel with weight a in [0, 1] (for dense drawings).
  void blend(int x, int y, color c, float a) {
    if (x < 0 || y < 0 || x >= int(width) || y >= int(height)) return;
    std::uint8_t* p = &rgb[(std::size_t(y) * width + x) * 3];
    p[0] = std::uint8_t(p[0] + (c.r - p[0]) * a);
    p[1] = std::uint8_t(p[1] + (c.g - p[1]) * a);
    p[2] = std::uint8_t(p[2] + (c.b - p[2]) * a);
  }
  /// Bresenham line; every `dash`-th run of pixels is left out when dash > 0.
  void line(int x0, int y0, int x1, int y1, color c, int thick = 1, int dash = 0) {
    const int dx = std::abs(x1 - x0), dy = -std::abs(y1 - y0), sx = x0 < x1 ? 1 : -1, sy = y0 < y1 ? 1 : -1;
    int err = dx + dy, k = 0;
    for (;;) {
      if (dash <= 0 || (k / dash) % 2 == 0)
        for (int a = 0; a < thick; ++a)
          for (int b = 0; b < thick; ++b) set(x0 + a - thick / 2, y0 + b - thick / 2, c);
      ++k;
      if (x0 == x1 && y0 == y1) break;
      const int e2 = 2 * err;
      if (e2 >= dy) err += dy, x0 += sx;
      if (e2 <= dx) err += dx, y0 += sy;
    }
  }
  void rect(int x0, int y0, int x1, int y1, color c) {
    line(x0, y0, x1, y0, c);
    line(x1, y0, x1, y1, c);
    line(x1, y1, x0, y1, c);
    line(x0, y1, x0, y0, c);
  }
  void fill(int x0, int y0, int x1, int y1, color c, float a = 1) {
    if (x0 > x1) std::swap(x0, x1);
    if (y0 > y1) std::swap(y0, y1);
    for (int y = std::max(y0, 0); y <= std::min(y1, int(height) - 1); ++y)
      for (int x = std::max(x0, 0); x <= std::min(x1, int(width) - 1); ++x) a >= 1 ? set(x, y, c) : blend(x, y, c, a);
  }
  /// A filled square marker of side 2r+1 centred on (x, y).
  void dot(int x, int y, int r, color c) { fill(x - r, y - r, x + r, y + r, c); }

  /// Text in the 5x7 font, top-left at (x, y), each font pixel scale x scale. Returns the width drawn.
  int text(int x, int y, std::string_view s, color c, int scale = 1) {
    int cx = x;
    for (char ch : s) {
      const std::uint8_t* g = glyph(ch);
      for (int row = 0; row < 7; ++row)
        for (int col = 0; col < 5; ++col)
          if (g[row] >> (4 - col) & 1) fill(cx + col * scale, y + row * scale, cx + col * scale + scale - 1,
                                            y + row * scale + scale - 1, c);
      cx += 6 * scale;
    }
    return cx - x;
  }
  static int text_width(std::string_view s, int scale = 1) { return int(s.size()) * 6 * scale; }

 private:
  void set_index(std::size_t i, color c) {
    rgb[3 * i] = c.r;
    rgb[3 * i + 1] = c.g;
    rgb[3 * i + 2] = c.b;
  }
  // Rows top to bottom, the low 5 bits of each byte left to right.
  static const std::uint8_t* glyph(char ch) {
    static const std::uint8_t blank[7] = {0, 0, 0, 0, 0, 0, 0};
    static const std::uint8_t digits[10][7] = {
        {14, 17, 19, 21, 25, 17, 14}, {4, 12, 4, 4, 4, 4, 14},   {14, 17, 1, 2, 4, 8, 31},  {31, 2, 4, 2, 1, 17, 14},
        {2, 6, 10, 18, 31, 2, 2},     {31, 16, 30, 1, 1, 17, 14}, {6, 8, 16, 30, 17, 17, 14}, {31, 1, 2, 4, 8, 8, 8},
        {14, 17, 17, 14, 17, 17, 14}, {14, 17, 17, 15, 1, 2, 12}};
    static const std::uint8_t letters[26][7] = {
        {14, 17, 17, 31, 17, 17, 17}, {30, 17, 17, 30, 17, 17, 30}, {14, 17, 16, 16, 16, 17, 14}, {28, 18, 17, 17, 17, 18, 28},
        {31, 16, 16, 30, 16, 16, 31}, {31, 16, 16, 30, 16, 16, 16}, {14, 17, 16, 23, 17, 17, 15}, {17, 17, 17, 31, 17, 17, 17},
        {14, 4, 4, 4, 4, 4, 14},      {7, 2, 2, 2, 2, 18, 12},      {17, 18, 20, 24, 20, 18, 17}, {16, 16, 16, 16, 16, 16, 31},
        {17, 27, 21, 21, 17, 17, 17}, {17, 17, 25, 21, 19, 17, 17}, {14, 17, 17, 17, 17, 17, 14}, {30, 17, 17, 30, 16, 16, 16},
        {14, 17, 17, 17, 21, 18, 13}, {30, 17, 17, 30, 20, 18, 17}, {15, 16, 16, 14, 1, 1, 30},   {31, 4, 4, 4, 4, 4, 4},
        {17, 17, 17, 17, 17, 17, 14}, {17, 17, 17, 17, 17, 10, 4},  {17, 17, 17, 21, 21, 21, 10}, {17, 17, 10, 4, 10, 17, 17},
        {17, 17, 10, 4, 4, 4, 4},     {31, 1, 2, 4, 8, 16, 31}};
    static const std::uint8_t dot_[7] = {0, 0, 0, 0, 0, 12, 12}, minus[7] = {0, 0, 0, 31, 0, 0, 0},
                              slash[7] = {1, 1, 2, 4, 8, 16, 16}, colon[7] = {0, 12, 12, 0, 12, 12, 0},
                              pct[7] = {24, 25, 2, 4, 8, 19, 3}, lpar[7] = {2, 4, 8, 8, 8, 4, 2},
                              rpar[7] = {8, 4, 2, 2, 2, 4, 8},
                              comma[7] = {0, 0, 0, 0, 12, 4, 8}, equal[7] = {0, 0, 31, 0, 31, 0, 0},
                              plus[7] = {0, 4, 4, 31, 4, 4, 0};
    if (ch >= '0' && ch <= '9') return digits[ch - '0'];
    if (ch >= 'A' && ch <= 'Z') return letters[ch - 'A'];
    if (ch >= 'a' && ch <= 'z') return letters[ch - 'a'];
    switch (ch) {
      case '.': return dot_;
      case '-': return minus;
      case '/': return slash;
      case ':': return colon;
      case '%': return pct;
      case '(': return lpar;
      case ')': return rpar;
      case ',': return comma;
      case '=': return equal;
      case '+': return plus;
      default: return blank;
    }
  }
};

}  // namespace radix_apps
