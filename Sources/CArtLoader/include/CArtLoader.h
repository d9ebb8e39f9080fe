#ifndef BRADOS_CART_LOADER_H
#define BRADOS_CART_LOADER_H

#include <stddef.h>
#include <stdint.h>

/// The libraries pictures are drawn with, each opened with dlopen on first use (never at
/// start-up): Chafa draws, TurboJPEG and libpng decode.
typedef enum {
    CART_LIB_CHAFA = 0,
    CART_LIB_TURBOJPEG = 1,
    CART_LIB_PNG = 2,
} cart_lib;

/// The soname brados opens for `library` ("libchafa.so.0", …).
const char *cart_lib_soname(cart_lib library);

/// Why `library` could not be loaded (`dlerror()`), or NULL when it was.
const char *cart_load_error(cart_lib library);

/// Results of ``cart_decode``.
typedef enum {
    CART_OK = 0,
    /// The decoder's library is missing (see ``cart_load_error``).
    CART_MISSING_LIBRARY = 1,
    /// Neither a JPEG nor a PNG.
    CART_UNKNOWN_FORMAT = 2,
    /// A JPEG or PNG that does not decode (truncated, corrupt).
    CART_CORRUPT = 3,
    /// Wider or taller than the most brados decodes.
    CART_TOO_LARGE = 4,
    /// Out of memory.
    CART_NO_MEMORY = 5,
} cart_status;

/// A decoded image: RGB or RGBA (`channels` 3 or 4), 8 bits a channel, not premultiplied,
/// rows of `width * channels` bytes.
typedef struct {
    int width;
    int height;
    int channels;
    uint8_t *pixels;
} cart_image;

/// Decodes a JPEG or PNG (told apart by its signature). A JPEG is decoded at the smallest
/// of TurboJPEG's scales whose sides are at least `min_side` (0: full size). Sides above
/// `max_side` are refused. `detail` receives the decoder's message when there is one.
cart_status cart_decode(const uint8_t *data, size_t size, int min_side, int max_side,
                        cart_image *out, char *detail, size_t detail_size);

/// Frees what ``cart_decode`` allocated.
void cart_image_free(cart_image *image);

/// The symbols pictures are drawn with: Chafa's block, border (the eighths) and space tags,
/// what Chafa itself draws with by default.
#define CART_SYMBOLS 0x19u

/// How Chafa draws one picture.
typedef struct {
    /// 0 symbols, 1 sixel, 2 kitty, 3 iTerm2 (Chafa's ChafaPixelMode).
    int pixel_mode;
    /// Chafa's ChafaCanvasMode: 0 truecolor, 1 256 colours, 3 16 colours, 5 no colour.
    int canvas_mode;
    /// The size in character cells.
    int width_cells;
    int height_cells;
    /// One cell in pixels (pixel modes); 0 when unknown.
    int cell_width;
    int cell_height;
    /// Chafa's ChafaSymbolTags to draw with (symbols mode).
    uint32_t symbol_tags;
    /// The environment Chafa's terminal database reads to choose the sequences it prints
    /// (`TERM=xterm-kitty`, `TERM_PROGRAM=iTerm.app`, …), NULL-terminated: never the process's own.
    const char *const *environment;
    /// Chafa's work factor, 0.0-1.0 (more is slower and better).
    float work_factor;
} cart_render_options;

/// Draws `image` with Chafa; returns a malloc'd NUL-terminated string (`length` set) or
/// NULL when Chafa is missing.
char *cart_render(const cart_image *image, const cart_render_options *options, size_t *length);

/// Chafa's size for an image of `width`×`height` pixels inside `width_cells`×`height_cells`
/// cells whose width is `font_ratio` of their height, keeping the aspect ratio. Returns 0
/// when Chafa is missing.
int cart_fit(int width, int height, int *width_cells, int *height_cells, float font_ratio);

/// Opens the libraries and draws one pixel, so Chafa's tables exist before the first real
/// picture (called on another thread while the caller reads its caches).
void cart_prepare(void);

/// Frees what ``cart_render`` returned.
void cart_free(char *text);

#endif
