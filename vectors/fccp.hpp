// fast-cpp-csv-parser (Debian libfccp-dev), included once with the project's settings.
#pragma once

#define CSV_IO_NO_THREAD  // files are small and read once: no reader thread
// The library's error type truncates long file names with strncpy, on purpose; GCC warns.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstringop-truncation"
#endif
#include <libfccp/csv.h>
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
