#ifndef BEEKON_CSQLITE_SHIM_H
#define BEEKON_CSQLITE_SHIM_H
// Fixed-arity wrappers for SQLite's variadic functions and the macros Swift cannot import.
#include <sqlite3.h>

// sqlite3_config(SQLITE_CONFIG_PAGECACHE, buffer, size, count). (NULL, 0, 0) turns off the
// per-connection bulk page-cache allocation, so an idle connection costs little memory.
static inline int beekon_sqlite3_config_pagecache(void *buffer, int size, int count) {
    return sqlite3_config(SQLITE_CONFIG_PAGECACHE, buffer, size, count);
}

// sqlite3_config(SQLITE_CONFIG_LOOKASIDE, slot size, slot count): the default lookaside
// allocator reserves about 120 KiB per connection.
static inline int beekon_sqlite3_config_lookaside(int slotSize, int slotCount) {
    return sqlite3_config(SQLITE_CONFIG_LOOKASIDE, slotSize, slotCount);
}

// sqlite3_config(SQLITE_CONFIG_MEMSTATUS, on): memory statistics take a global mutex per malloc.
static inline int beekon_sqlite3_config_memstatus(int on) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, on);
}

// SQLITE_TRANSIENT is a cast of -1 to a function pointer, which Swift cannot import.
static inline sqlite3_destructor_type beekon_sqlite3_transient(void) {
    return SQLITE_TRANSIENT;
}

static inline int beekon_sqlite3_bind_text_transient(sqlite3_stmt *statement, int index,
                                                     const char *text, int byteCount) {
    return sqlite3_bind_text(statement, index, text, byteCount, SQLITE_TRANSIENT);
}

static inline int beekon_sqlite3_bind_blob_transient(sqlite3_stmt *statement, int index,
                                                     const void *bytes, int byteCount) {
    return sqlite3_bind_blob(statement, index, bytes, byteCount, SQLITE_TRANSIENT);
}

// sqlite3_db_config(db, SQLITE_DBCONFIG_LOOKASIDE, buffer, slot size, slot count): per connection,
// so lookaside stays off even if something initialised SQLite before the process-wide config.
static inline int beekon_sqlite3_db_config_lookaside(sqlite3 *db, void *buffer, int slotSize,
                                                     int slotCount) {
    return sqlite3_db_config(db, SQLITE_DBCONFIG_LOOKASIDE, buffer, slotSize, slotCount);
}

// sqlite3_db_config(db, option, on, &result) for the boolean options (SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE
// and friends); result may be NULL.
static inline int beekon_sqlite3_db_config_flag(sqlite3 *db, int option, int on, int *result) {
    return sqlite3_db_config(db, option, on, result);
}

// F_OFD_SETLK (Linux 3.15) needs _GNU_SOURCE, which the Swift importer's headers may not define.
#include <fcntl.h>
#ifndef F_OFD_SETLK
#define F_OFD_SETLK 37
#endif

// A write lock on [start, start + length) of descriptor fd's file, held by its open file
// description: unlike a classic POSIX lock it is not dropped when the process closes another
// descriptor of the same file, and it conflicts with other processes' POSIX locks. 0, or -1 with
// errno (EAGAIN or EACCES when another process holds a conflicting lock).
static inline int beekon_ofd_write_lock(int fd, long long start, long long length) {
    struct flock lock = {0};
    lock.l_type = F_WRLCK;
    lock.l_whence = SEEK_SET;
    lock.l_start = start;
    lock.l_len = length;
    return fcntl(fd, F_OFD_SETLK, &lock);
}

#endif
