#ifndef LOG_H
#define LOG_H

enum log_level {
    LOG_DEBUG,
    LOG_INFO,
    LOG_WARN,
    LOG_ERROR
};

#define KV_LOG(lvl, ...) log_write((lvl), __FILE__, __LINE__, __VA_ARGS__)
#define KV_CHECK(x) do { if (!(x)) kv_panic(#x, __FILE__, __LINE__); } while (0)

void log_set_level(int lvl);
void log_write(int lvl, const char *file, int line, const char *fmt, ...);
void kv_panic(const char *expr, const char *file, int line);

#endif
