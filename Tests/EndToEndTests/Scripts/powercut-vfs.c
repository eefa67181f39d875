/*
 * powercut-vfs: a disk that keeps only what was synced, for pulling the plug on screentimed.
 *
 * Loaded with LD_PRELOAD into a process that uses the system's libsqlite3, it wraps SQLite's
 * default VFS ("unix") in one that becomes the default. As in SQLite's own crash-test VFS
 * (src/test6.c), a file's writes are held in memory until the file is synced (xSync): reads,
 * sizes and truncations see them, the file on disk does not. xSync writes them out, then syncs.
 * So a SIGKILL of the process is a power cut: what it never synced is gone, as a disk would have
 * lost it; what it synced is in the file. (Writes are not torn or reordered here: this models a
 * disk that loses every unsynced write, the worst case for what is kept.)
 *
 * What is held is kept per file name, shared by all handles of the process on that file (SQLite
 * opens the write-ahead log once per connection, and a sync through any handle writes out the
 * whole file, as fsync does), and outlives the handles' close, as the page cache would, until the
 * file is deleted. Locks and the wal-index (-shm, the xShm* methods) go to the real file: SQLite
 * rebuilds the wal-index from the log when it opens the database after the cut. The methods are
 * version 2: without xFetch, SQLite never maps the database file into memory behind this layer.
 * Files without a name or deleted on close (temporary files) are passed through untouched.
 *
 * It says on stderr that it is loaded, and the first time it holds the writes of each file, so that
 * a test can see that it took effect.
 *
 * Build: cc -shared -fPIC -O1 -o powercut-vfs.so powercut-vfs.c -lsqlite3
 */
#include <pthread.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* One write not synced yet. */
struct held {
    sqlite3_int64 offset;
    int amount;
    struct held *next;
    unsigned char data[];
};

/* What the disk does not have yet of one file. Its content as the process sees it: the file on
 * disk, cut at `cut` when a truncation is held, at least `size` long (the size of the last
 * truncation), with the held writes laid over it in order. */
struct pending {
    char *name;                 /* NULL once the file is deleted */
    int handles;
    struct held *first, *last;
    int truncated;
    sqlite3_int64 cut, size;
    struct pending *next;
};

struct file {
    sqlite3_file base;
    struct pending *p;          /* NULL: passed through */
    sqlite3_file *real;         /* the unix VFS's file, right after this struct */
};

static sqlite3_vfs *real_vfs;
static struct pending *files;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static int held_at_all(struct pending *p) { return p && (p->first || p->truncated); }

/* The size the process sees, from the size on disk. Called with the lock held. */
static sqlite3_int64 logical_size(struct pending *p, sqlite3_int64 on_disk) {
    sqlite3_int64 size = p->truncated && p->cut < on_disk ? p->cut : on_disk;
    if (p->truncated && p->size > size) size = p->size;
    for (struct held *h = p->first; h; h = h->next)
        if (h->offset + h->amount > size) size = h->offset + h->amount;
    return size;
}

static void drop_held(struct pending *p) {
    while (p->first) {
        struct held *h = p->first;
        p->first = h->next;
        free(h);
    }
    p->last = NULL;
    p->truncated = 0;
    p->cut = p->size = 0;
}

static void forget(struct pending *p) {
    for (struct pending **at = &files; *at; at = &(*at)->next)
        if (*at == p) { *at = p->next; break; }
    drop_held(p);
    free(p->name);
    free(p);
}

static struct pending *find(const char *name) {
    for (struct pending *p = files; p; p = p->next)
        if (p->name && strcmp(p->name, name) == 0) return p;
    return NULL;
}

/* MARK: the file's methods */

static int pc_close(sqlite3_file *f) {
    struct file *pf = (struct file *)f;
    pthread_mutex_lock(&lock);
    if (pf->p && --pf->p->handles == 0 && (!held_at_all(pf->p) || !pf->p->name)) forget(pf->p);
    pthread_mutex_unlock(&lock);
    return pf->real->pMethods->xClose(pf->real);
}

static int pc_read(sqlite3_file *f, void *buffer, int amount, sqlite3_int64 offset) {
    struct file *pf = (struct file *)f;
    pthread_mutex_lock(&lock);
    int rc = pf->real->pMethods->xRead(pf->real, buffer, amount, offset);
    /* On a short read, the rest is zeros (SQLite's rule); held writes may fill it. */
    if ((rc == SQLITE_OK || rc == SQLITE_IOERR_SHORT_READ) && held_at_all(pf->p)) {
        struct pending *p = pf->p;
        unsigned char *b = buffer;
        if (p->truncated && p->cut < offset + amount) {
            sqlite3_int64 from = p->cut > offset ? p->cut - offset : 0;
            memset(b + from, 0, amount - from);
        }
        for (struct held *h = p->first; h; h = h->next) {
            sqlite3_int64 from = h->offset > offset ? h->offset : offset;
            sqlite3_int64 to = h->offset + h->amount < offset + amount ? h->offset + h->amount : offset + amount;
            if (from < to) memcpy(b + (from - offset), h->data + (from - h->offset), to - from);
        }
        sqlite3_int64 on_disk = 0;
        rc = pf->real->pMethods->xFileSize(pf->real, &on_disk);
        sqlite3_int64 size = logical_size(p, on_disk);
        if (rc == SQLITE_OK && size < offset + amount) {
            sqlite3_int64 from = size > offset ? size - offset : 0;
            memset(b + from, 0, amount - from);
            rc = SQLITE_IOERR_SHORT_READ;
        }
    }
    pthread_mutex_unlock(&lock);
    return rc;
}

static int pc_write(sqlite3_file *f, const void *buffer, int amount, sqlite3_int64 offset) {
    struct file *pf = (struct file *)f;
    if (!pf->p) return pf->real->pMethods->xWrite(pf->real, buffer, amount, offset);
    struct held *h = malloc(sizeof *h + amount);
    if (!h) return SQLITE_IOERR_NOMEM;
    h->offset = offset;
    h->amount = amount;
    h->next = NULL;
    memcpy(h->data, buffer, amount);
    pthread_mutex_lock(&lock);
    if (pf->p->last) pf->p->last->next = h; else pf->p->first = h;
    pf->p->last = h;
    pthread_mutex_unlock(&lock);
    return SQLITE_OK;
}

static int pc_truncate(sqlite3_file *f, sqlite3_int64 size) {
    struct file *pf = (struct file *)f;
    if (!pf->p) return pf->real->pMethods->xTruncate(pf->real, size);
    pthread_mutex_lock(&lock);
    struct pending *p = pf->p;
    /* Held writes past the new end are gone; so is what the disk has past it. */
    struct held **at = &p->first;
    p->last = NULL;
    while (*at) {
        struct held *h = *at;
        if (h->offset >= size) { *at = h->next; free(h); continue; }
        if (h->offset + h->amount > size) h->amount = (int)(size - h->offset);
        p->last = h;
        at = &h->next;
    }
    if (!p->truncated || size < p->cut) p->cut = size;
    p->truncated = 1;
    p->size = size;
    pthread_mutex_unlock(&lock);
    return SQLITE_OK;
}

/* Writes out what is held, then syncs the real file. */
static int pc_sync(sqlite3_file *f, int flags) {
    struct file *pf = (struct file *)f;
    int rc = SQLITE_OK;
    pthread_mutex_lock(&lock);
    struct pending *p = pf->p;
    if (held_at_all(p)) {
        const sqlite3_io_methods *m = pf->real->pMethods;
        if (p->truncated) rc = m->xTruncate(pf->real, p->cut);
        for (struct held *h = p->first; h && rc == SQLITE_OK; h = h->next) rc = m->xWrite(pf->real, h->data, h->amount, h->offset);
        sqlite3_int64 on_disk = 0;
        if (rc == SQLITE_OK && p->truncated) rc = m->xFileSize(pf->real, &on_disk);
        if (rc == SQLITE_OK && p->truncated && on_disk < p->size) rc = m->xTruncate(pf->real, p->size);
        if (rc == SQLITE_OK) drop_held(p);
    }
    pthread_mutex_unlock(&lock);
    return rc == SQLITE_OK ? pf->real->pMethods->xSync(pf->real, flags) : rc;
}

static int pc_file_size(sqlite3_file *f, sqlite3_int64 *size) {
    struct file *pf = (struct file *)f;
    pthread_mutex_lock(&lock);
    int rc = pf->real->pMethods->xFileSize(pf->real, size);
    if (rc == SQLITE_OK && held_at_all(pf->p)) *size = logical_size(pf->p, *size);
    pthread_mutex_unlock(&lock);
    return rc;
}

static int pc_lock(sqlite3_file *f, int level) { return ((struct file *)f)->real->pMethods->xLock(((struct file *)f)->real, level); }
static int pc_unlock(sqlite3_file *f, int level) { return ((struct file *)f)->real->pMethods->xUnlock(((struct file *)f)->real, level); }
static int pc_check_reserved(sqlite3_file *f, int *out) {
    return ((struct file *)f)->real->pMethods->xCheckReservedLock(((struct file *)f)->real, out);
}

static int pc_file_control(sqlite3_file *f, int op, void *arg) {
    struct file *pf = (struct file *)f;
    /* Growing the file ahead of the writes would put on disk what the process has not synced. */
    if (pf->p && (op == SQLITE_FCNTL_SIZE_HINT || op == SQLITE_FCNTL_CHUNK_SIZE)) return SQLITE_OK;
    return pf->real->pMethods->xFileControl(pf->real, op, arg);
}

static int pc_sector_size(sqlite3_file *f) { return ((struct file *)f)->real->pMethods->xSectorSize(((struct file *)f)->real); }
static int pc_device_characteristics(sqlite3_file *f) {
    return ((struct file *)f)->real->pMethods->xDeviceCharacteristics(((struct file *)f)->real);
}

static int pc_shm_map(sqlite3_file *f, int page, int size, int extend, void volatile **out) {
    return ((struct file *)f)->real->pMethods->xShmMap(((struct file *)f)->real, page, size, extend, out);
}
static int pc_shm_lock(sqlite3_file *f, int offset, int n, int flags) {
    return ((struct file *)f)->real->pMethods->xShmLock(((struct file *)f)->real, offset, n, flags);
}
static void pc_shm_barrier(sqlite3_file *f) { ((struct file *)f)->real->pMethods->xShmBarrier(((struct file *)f)->real); }
static int pc_shm_unmap(sqlite3_file *f, int delete) {
    return ((struct file *)f)->real->pMethods->xShmUnmap(((struct file *)f)->real, delete);
}

static const sqlite3_io_methods methods = {
    2,    /* up to xShmUnmap: no xFetch/xUnfetch, so no memory map of the database file */
    pc_close, pc_read, pc_write, pc_truncate, pc_sync, pc_file_size, pc_lock, pc_unlock, pc_check_reserved,
    pc_file_control, pc_sector_size, pc_device_characteristics, pc_shm_map, pc_shm_lock, pc_shm_barrier, pc_shm_unmap,
    NULL, NULL,
};

/* MARK: the VFS's methods (the unix VFS's, called with its own sqlite3_vfs) */

static int pc_open(sqlite3_vfs *vfs, const char *name, sqlite3_file *f, int flags, int *out_flags) {
    (void)vfs;
    struct file *pf = (struct file *)f;
    pf->real = (sqlite3_file *)(pf + 1);
    pf->p = NULL;
    int rc = real_vfs->xOpen(real_vfs, name, pf->real, flags, out_flags);
    if (rc != SQLITE_OK) {
        if (pf->real->pMethods) pf->real->pMethods->xClose(pf->real);
        f->pMethods = NULL;
        return rc;
    }
    if (name && !(flags & SQLITE_OPEN_DELETEONCLOSE)) {
        pthread_mutex_lock(&lock);
        struct pending *p = find(name);
        if (!p && (p = calloc(1, sizeof *p))) {
            if ((p->name = strdup(name))) {
                p->next = files;
                files = p;
                fprintf(stderr, "powercut-vfs: holding unsynced writes to %s\n", name);
            } else {
                free(p);
                p = NULL;
            }
        }
        if (p) p->handles++;
        pthread_mutex_unlock(&lock);
        if (!p) {
            pf->real->pMethods->xClose(pf->real);
            f->pMethods = NULL;
            return SQLITE_NOMEM;
        }
        pf->p = p;
    }
    f->pMethods = &methods;
    return SQLITE_OK;
}

static int pc_delete(sqlite3_vfs *vfs, const char *name, int sync_dir) {
    (void)vfs;
    pthread_mutex_lock(&lock);
    struct pending *p = find(name);
    if (p && p->handles == 0) forget(p);
    else if (p) { free(p->name); p->name = NULL; }      /* its open handles write to the deleted file */
    pthread_mutex_unlock(&lock);
    return real_vfs->xDelete(real_vfs, name, sync_dir);
}

/* A file whose content is all held (a new write-ahead log) exists; one held truncated to nothing does not. */
static int pc_access(sqlite3_vfs *vfs, const char *name, int what, int *out) {
    (void)vfs;
    int rc = real_vfs->xAccess(real_vfs, name, what, out);
    if (rc != SQLITE_OK || what != SQLITE_ACCESS_EXISTS) return rc;
    pthread_mutex_lock(&lock);
    struct pending *p = find(name);
    struct stat st;
    if (held_at_all(p) && stat(name, &st) == 0) *out = logical_size(p, st.st_size) > 0;
    pthread_mutex_unlock(&lock);
    return rc;
}

static int pc_full_pathname(sqlite3_vfs *vfs, const char *name, int n, char *out) {
    (void)vfs;
    return real_vfs->xFullPathname(real_vfs, name, n, out);
}
static void *pc_dl_open(sqlite3_vfs *vfs, const char *name) { (void)vfs; return real_vfs->xDlOpen(real_vfs, name); }
static void pc_dl_error(sqlite3_vfs *vfs, int n, char *out) { (void)vfs; real_vfs->xDlError(real_vfs, n, out); }
static void (*pc_dl_sym(sqlite3_vfs *vfs, void *lib, const char *sym))(void) { (void)vfs; return real_vfs->xDlSym(real_vfs, lib, sym); }
static void pc_dl_close(sqlite3_vfs *vfs, void *lib) { (void)vfs; real_vfs->xDlClose(real_vfs, lib); }
static int pc_randomness(sqlite3_vfs *vfs, int n, char *out) { (void)vfs; return real_vfs->xRandomness(real_vfs, n, out); }
static int pc_sleep(sqlite3_vfs *vfs, int micros) { (void)vfs; return real_vfs->xSleep(real_vfs, micros); }
static int pc_current_time(sqlite3_vfs *vfs, double *out) { (void)vfs; return real_vfs->xCurrentTime(real_vfs, out); }
static int pc_last_error(sqlite3_vfs *vfs, int n, char *out) { (void)vfs; return real_vfs->xGetLastError(real_vfs, n, out); }
static int pc_current_time_int64(sqlite3_vfs *vfs, sqlite3_int64 *out) { (void)vfs; return real_vfs->xCurrentTimeInt64(real_vfs, out); }

static sqlite3_vfs vfs = {
    2, 0, 0, NULL, "powercut",
    NULL, pc_open, pc_delete, pc_access, pc_full_pathname, pc_dl_open, pc_dl_error, pc_dl_sym, pc_dl_close,
    pc_randomness, pc_sleep, pc_current_time, pc_last_error, pc_current_time_int64,
    NULL, NULL, NULL,
};

__attribute__((constructor)) static void install(void) {
    real_vfs = sqlite3_vfs_find(NULL);
    if (!real_vfs) {
        fprintf(stderr, "powercut-vfs: SQLite has no default VFS; nothing is held back\n");
        return;
    }
    vfs.mxPathname = real_vfs->mxPathname;
    vfs.szOsFile = (int)sizeof(struct file) + real_vfs->szOsFile;
    int rc = sqlite3_vfs_register(&vfs, 1);
    fprintf(stderr, rc == SQLITE_OK ? "powercut-vfs: loaded; writes not synced are lost when the process dies\n"
                                    : "powercut-vfs: could not register the VFS; nothing is held back\n");
}
