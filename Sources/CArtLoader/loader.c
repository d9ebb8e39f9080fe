// The libraries brados draws pictures with, opened with dlopen on first use.
//
// Chafa (terminal graphics: kitty, iTerm2, sixel, Unicode symbols) links GLib, and the
// decoders are only needed to draw a cover: loading them at every start would cost every
// command, so each is opened by the first picture. Chafa's functions are declared here in
// plain C types (its headers need GLib's development headers, which only this file would use);
// their ABI is libchafa.so.0's. The decoders' own headers are used as they are.
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <png.h>
#include <turbojpeg.h>
#include "CArtLoader.h"
#include "CLoadOnce.h"

#define CHAFA_SONAME "libchafa.so.0"
#define TURBOJPEG_SONAME "libturbojpeg.so.0"
#define PNG_SONAME "libpng16.so.16"

// Packaging puts each library's package in the .deb's Recommends: brados works without them
// (a cover is then a placeholder, and the command says why once).
BRADOS_DLOPEN_NOTE("[{\"feature\":\"pictures\",\"description\":\"pictures in the terminal (kitty, iTerm2, sixel, symbols)\","
                   "\"priority\":\"recommended\",\"soname\":[\"" CHAFA_SONAME "\"]},"
                   "{\"feature\":\"jpeg\",\"description\":\"decoding JPEG pictures\","
                   "\"priority\":\"recommended\",\"soname\":[\"" TURBOJPEG_SONAME "\"]},"
                   "{\"feature\":\"png\",\"description\":\"decoding PNG pictures\","
                   "\"priority\":\"recommended\",\"soname\":[\"" PNG_SONAME "\"]}]");

// Indexed by cart_lib.
static brados_library libraries[3] = {BRADOS_LIBRARY(CHAFA_SONAME), BRADOS_LIBRARY(TURBOJPEG_SONAME), BRADOS_LIBRARY(PNG_SONAME)};

const char *cart_lib_soname(cart_lib library) { return libraries[library].soname; }

const char *cart_load_error(cart_lib library) { return brados_library_error(&libraries[library]); }

static void *symbol(cart_lib library, const char *name) { return brados_library_symbol(&libraries[library], name); }

#define LOOKUP(library, name) ((__typeof__(&name))symbol(library, #name))

// --- decoding ----------------------------------------------------------------------------

static void set_detail(char *detail, size_t detail_size, const char *text) {
    if (detail != NULL && detail_size > 0) snprintf(detail, detail_size, "%s", text != NULL ? text : "");
}

static cart_status decode_jpeg(const uint8_t *data, size_t size, int min_side, int max_side,
                               cart_image *out, char *detail, size_t detail_size) {
    __typeof__(&tjInitDecompress) init = LOOKUP(CART_LIB_TURBOJPEG, tjInitDecompress);
    __typeof__(&tjDecompressHeader3) header = LOOKUP(CART_LIB_TURBOJPEG, tjDecompressHeader3);
    __typeof__(&tjGetScalingFactors) factors = LOOKUP(CART_LIB_TURBOJPEG, tjGetScalingFactors);
    __typeof__(&tjDecompress2) decompress = LOOKUP(CART_LIB_TURBOJPEG, tjDecompress2);
    __typeof__(&tjDestroy) destroy = LOOKUP(CART_LIB_TURBOJPEG, tjDestroy);
    __typeof__(&tjGetErrorStr2) message = LOOKUP(CART_LIB_TURBOJPEG, tjGetErrorStr2);
    __typeof__(&tjGetErrorCode) code = LOOKUP(CART_LIB_TURBOJPEG, tjGetErrorCode);
    if (!init || !header || !factors || !decompress || !destroy || !message || !code) return CART_MISSING_LIBRARY;
    if (size > 0x7fffffffUL) return CART_TOO_LARGE;
    tjhandle tj = init();
    if (tj == NULL) return CART_NO_MEMORY;
    int width = 0, height = 0, subsampling = 0, colorspace = 0;
    if (header(tj, data, (unsigned long)size, &width, &height, &subsampling, &colorspace) != 0 && code(tj) != TJERR_WARNING) {
        set_detail(detail, detail_size, message(tj));
        destroy(tj);
        return CART_CORRUPT;
    }
    if (width <= 0 || height <= 0 || width > max_side || height > max_side) {
        destroy(tj);
        return width <= 0 || height <= 0 ? CART_CORRUPT : CART_TOO_LARGE;
    }
    // The smallest scale whose sides are still at least min_side: less to decode.
    int count = 0, scaled_width = width, scaled_height = height;
    tjscalingfactor *scales = factors(&count);
    for (int i = 0; scales != NULL && i < count && min_side > 0; i++) {
        int w = TJSCALED(width, scales[i]), h = TJSCALED(height, scales[i]);
        if (w >= min_side && h >= min_side && (long)w * h < (long)scaled_width * scaled_height) {
            scaled_width = w;
            scaled_height = h;
        }
    }
    uint8_t *pixels = malloc((size_t)scaled_width * scaled_height * 3);
    if (pixels == NULL) { destroy(tj); return CART_NO_MEMORY; }
    // A warning (extraneous bytes before a marker, a premature end of the data) still gives
    // an image, as every viewer shows it: only an error is a corrupt one.
    if (decompress(tj, data, (unsigned long)size, pixels, scaled_width, scaled_width * 3, scaled_height,
                   TJPF_RGB, TJFLAG_FASTDCT | TJFLAG_FASTUPSAMPLE) != 0 && code(tj) != TJERR_WARNING) {
        set_detail(detail, detail_size, message(tj));
        free(pixels);
        destroy(tj);
        return CART_CORRUPT;
    }
    destroy(tj);
    out->width = scaled_width;
    out->height = scaled_height;
    out->channels = 3;
    out->pixels = pixels;
    return CART_OK;
}

static cart_status decode_png(const uint8_t *data, size_t size, int max_side,
                              cart_image *out, char *detail, size_t detail_size) {
    __typeof__(&png_image_begin_read_from_memory) begin = LOOKUP(CART_LIB_PNG, png_image_begin_read_from_memory);
    __typeof__(&png_image_finish_read) finish = LOOKUP(CART_LIB_PNG, png_image_finish_read);
    __typeof__(&png_image_free) release = LOOKUP(CART_LIB_PNG, png_image_free);
    if (!begin || !finish || !release) return CART_MISSING_LIBRARY;
    png_image image;
    memset(&image, 0, sizeof image);
    image.version = PNG_IMAGE_VERSION;
    if (!begin(&image, data, size)) {
        set_detail(detail, detail_size, image.message);
        release(&image);
        return CART_CORRUPT;
    }
    if (image.width == 0 || image.height == 0 || image.width > (png_uint_32)max_side || image.height > (png_uint_32)max_side) {
        cart_status status = image.width == 0 || image.height == 0 ? CART_CORRUPT : CART_TOO_LARGE;
        release(&image);
        return status;
    }
    // Without alpha, three bytes a pixel: less to write and for Chafa to read.
    int alpha = (image.format & PNG_FORMAT_FLAG_ALPHA) != 0;
    image.format = alpha ? PNG_FORMAT_RGBA : PNG_FORMAT_RGB;
    uint8_t *pixels = malloc(PNG_IMAGE_SIZE(image));
    if (pixels == NULL) { release(&image); return CART_NO_MEMORY; }
    if (!finish(&image, NULL, pixels, 0, NULL)) {
        set_detail(detail, detail_size, image.message);
        release(&image);
        free(pixels);
        return CART_CORRUPT;
    }
    out->width = (int)image.width;
    out->height = (int)image.height;
    out->channels = alpha ? 4 : 3;
    out->pixels = pixels;
    release(&image);
    return CART_OK;
}

cart_status cart_decode(const uint8_t *data, size_t size, int min_side, int max_side,
                        cart_image *out, char *detail, size_t detail_size) {
    static const uint8_t png_signature[8] = {0x89, 'P', 'N', 'G', 0x0d, 0x0a, 0x1a, 0x0a};
    memset(out, 0, sizeof *out);
    set_detail(detail, detail_size, "");
    if (data == NULL) return CART_UNKNOWN_FORMAT;
    if (size >= 3 && data[0] == 0xff && data[1] == 0xd8 && data[2] == 0xff)
        return decode_jpeg(data, size, min_side, max_side, out, detail, detail_size);
    if (size >= 8 && memcmp(data, png_signature, 8) == 0)
        return decode_png(data, size, max_side, out, detail, detail_size);
    return CART_UNKNOWN_FORMAT;
}

void cart_image_free(cart_image *image) {
    if (image == NULL) return;
    free(image->pixels);
    image->pixels = NULL;
}

// --- drawing (Chafa 1.12's ABI, in plain C types) ---------------------------------------

typedef struct chafa_opaque chafa_opaque;
typedef struct { char *str; size_t len; size_t allocated_len; } chafa_gstring;

chafa_opaque *chafa_symbol_map_new(void);
void chafa_symbol_map_add_by_tags(chafa_opaque *map, uint32_t tags);
void chafa_symbol_map_unref(chafa_opaque *map);
chafa_opaque *chafa_canvas_config_new(void);
void chafa_canvas_config_set_geometry(chafa_opaque *config, int width, int height);
void chafa_canvas_config_set_cell_geometry(chafa_opaque *config, int width, int height);
void chafa_canvas_config_set_canvas_mode(chafa_opaque *config, int mode);
void chafa_canvas_config_set_pixel_mode(chafa_opaque *config, int mode);
void chafa_canvas_config_set_symbol_map(chafa_opaque *config, const chafa_opaque *map);
void chafa_canvas_config_set_work_factor(chafa_opaque *config, float factor);
void chafa_canvas_config_unref(chafa_opaque *config);
chafa_opaque *chafa_canvas_new(const chafa_opaque *config);
void chafa_canvas_draw_all_pixels(chafa_opaque *canvas, int type, const uint8_t *pixels, int width, int height, int stride);
chafa_gstring *chafa_canvas_print(chafa_opaque *canvas, chafa_opaque *term_info);
void chafa_canvas_unref(chafa_opaque *canvas);
chafa_opaque *chafa_term_db_get_default(void);
chafa_opaque *chafa_term_db_detect(chafa_opaque *db, char **envp);
void chafa_term_info_unref(chafa_opaque *info);
void chafa_calc_canvas_geometry(int src_width, int src_height, int *width_inout, int *height_inout,
                                float font_ratio, int zoom, int stretch);
char *g_string_free(chafa_gstring *string, int free_segment);

enum { CHAFA_PIXEL_RGBA8_UNASSOCIATED = 4, CHAFA_PIXEL_RGB8 = 8 };

int cart_fit(int width, int height, int *width_cells, int *height_cells, float font_ratio) {
    __typeof__(&chafa_calc_canvas_geometry) calc = LOOKUP(CART_LIB_CHAFA, chafa_calc_canvas_geometry);
    if (calc == NULL) return 0;
    calc(width, height, width_cells, height_cells, font_ratio, 1, 0);
    return 1;
}

char *cart_render(const cart_image *image, const cart_render_options *options, size_t *length) {
    __typeof__(&chafa_symbol_map_new) map_new = LOOKUP(CART_LIB_CHAFA, chafa_symbol_map_new);
    __typeof__(&chafa_symbol_map_add_by_tags) map_add = LOOKUP(CART_LIB_CHAFA, chafa_symbol_map_add_by_tags);
    __typeof__(&chafa_symbol_map_unref) map_unref = LOOKUP(CART_LIB_CHAFA, chafa_symbol_map_unref);
    __typeof__(&chafa_canvas_config_new) config_new = LOOKUP(CART_LIB_CHAFA, chafa_canvas_config_new);
    __typeof__(&chafa_canvas_config_set_geometry) set_geometry = LOOKUP(CART_LIB_CHAFA, chafa_canvas_config_set_geometry);
    __typeof__(&chafa_canvas_config_set_cell_geometry) set_cell = LOOKUP(CART_LIB_CHAFA, chafa_canvas_config_set_cell_geometry);
    __typeof__(&chafa_canvas_config_set_canvas_mode) set_canvas_mode = LOOKUP(CART_LIB_CHAFA, chafa_canvas_config_set_canvas_mode);
    __typeof__(&chafa_canvas_config_set_pixel_mode) set_pixel_mode = LOOKUP(CART_LIB_CHAFA, chafa_canvas_config_set_pixel_mode);
    __typeof__(&chafa_canvas_config_set_symbol_map) set_map = LOOKUP(CART_LIB_CHAFA, chafa_canvas_config_set_symbol_map);
    __typeof__(&chafa_canvas_config_set_work_factor) set_work = LOOKUP(CART_LIB_CHAFA, chafa_canvas_config_set_work_factor);
    __typeof__(&chafa_canvas_config_unref) config_unref = LOOKUP(CART_LIB_CHAFA, chafa_canvas_config_unref);
    __typeof__(&chafa_canvas_new) canvas_new = LOOKUP(CART_LIB_CHAFA, chafa_canvas_new);
    __typeof__(&chafa_canvas_draw_all_pixels) draw = LOOKUP(CART_LIB_CHAFA, chafa_canvas_draw_all_pixels);
    __typeof__(&chafa_canvas_print) print = LOOKUP(CART_LIB_CHAFA, chafa_canvas_print);
    __typeof__(&chafa_canvas_unref) canvas_unref = LOOKUP(CART_LIB_CHAFA, chafa_canvas_unref);
    __typeof__(&chafa_term_db_get_default) term_db = LOOKUP(CART_LIB_CHAFA, chafa_term_db_get_default);
    __typeof__(&chafa_term_db_detect) detect = LOOKUP(CART_LIB_CHAFA, chafa_term_db_detect);
    __typeof__(&chafa_term_info_unref) info_unref = LOOKUP(CART_LIB_CHAFA, chafa_term_info_unref);
    // GLib's, found through libchafa's own dependencies.
    __typeof__(&g_string_free) string_free = LOOKUP(CART_LIB_CHAFA, g_string_free);
    if (!map_new || !map_add || !map_unref || !config_new || !set_geometry || !set_cell || !set_canvas_mode ||
        !set_pixel_mode || !set_map || !set_work || !config_unref || !canvas_new || !draw || !print ||
        !canvas_unref || !term_db || !detect || !info_unref || !string_free)
        return NULL;

    chafa_opaque *map = map_new();
    map_add(map, options->symbol_tags);
    chafa_opaque *config = config_new();
    set_geometry(config, options->width_cells, options->height_cells);
    if (options->cell_width > 0 && options->cell_height > 0) set_cell(config, options->cell_width, options->cell_height);
    set_canvas_mode(config, options->canvas_mode);
    set_pixel_mode(config, options->pixel_mode);
    set_map(config, map);
    set_work(config, options->work_factor);
    chafa_opaque *canvas = canvas_new(config);
    if (canvas == NULL) {
        config_unref(config);
        map_unref(map);
        return NULL;
    }
    int type = image->channels == 4 ? CHAFA_PIXEL_RGBA8_UNASSOCIATED : CHAFA_PIXEL_RGB8;
    draw(canvas, type, image->pixels, image->width, image->height, image->width * image->channels);

    static const char *const fallback[] = {"TERM=xterm-256color", NULL};
    chafa_opaque *info = detect(term_db(), (char **)(options->environment != NULL ? options->environment : fallback));
    chafa_gstring *printed = print(canvas, info);
    char *text = malloc(printed->len + 1);
    if (text != NULL) {
        memcpy(text, printed->str, printed->len);
        text[printed->len] = 0;
        *length = printed->len;
    }
    string_free(printed, 1);
    info_unref(info);
    canvas_unref(canvas);
    config_unref(config);
    map_unref(map);
    return text;
}

void cart_prepare(void) {
    cart_load_error(CART_LIB_TURBOJPEG);
    cart_load_error(CART_LIB_PNG);
    uint8_t pixel[3] = {0, 0, 0};
    cart_image image = {1, 1, 3, pixel};
    static const char *const environment[] = {"TERM=xterm-256color", NULL};
    cart_render_options options = {0, 0, 1, 1, 0, 0, CART_SYMBOLS, environment, 0.5f};
    size_t length = 0;
    cart_free(cart_render(&image, &options, &length));
}

void cart_free(char *text) { free(text); }
