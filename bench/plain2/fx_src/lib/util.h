#ifndef UTIL_H
#define UTIL_H

long parse_size(const char *s);
char *xstrdup(const char *s);

#endif
