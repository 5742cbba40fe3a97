#include <stdio.h>
#include <wchar.h>
#include <histedit.h>

/* The standard streams are C globals Swift 6 refuses to read; this reads them in C. */
static inline EditLine *cdstore_el_init(const char *program) {
    return el_init(program, stdin, stdout, stderr);
}

/* el_set and history are variadic, which Swift cannot call: one fixed-signature wrapper per use. */

static inline int cdstore_el_set_prompt(EditLine *el, char *(*prompt)(EditLine *)) {
    return el_set(el, EL_PROMPT, prompt);
}

static inline int cdstore_el_set_editor(EditLine *el, const char *mode) {
    return el_set(el, EL_EDITOR, mode);
}

static inline int cdstore_el_set_history(EditLine *el, History *history_) {
    return el_set(el, EL_HIST, history, history_);
}

static inline int cdstore_el_add_function(EditLine *el, const char *name, const char *help,
                                          unsigned char (*function)(EditLine *, int)) {
    return el_set(el, EL_ADDFN, name, help, function);
}

static inline int cdstore_el_bind(EditLine *el, const char *key, const char *command) {
    return el_set(el, EL_BIND, key, command, (const char *)NULL);
}

static inline int cdstore_el_set_getc(EditLine *el, int (*function)(EditLine *, wchar_t *)) {
    return el_set(el, EL_GETCFN, function);
}

static inline int cdstore_history_set_size(History *history_, HistEvent *event, int size) {
    return history(history_, event, H_SETSIZE, size);
}

static inline int cdstore_history_set_unique(History *history_, HistEvent *event) {
    return history(history_, event, H_SETUNIQUE, 1);
}

static inline int cdstore_history_enter(History *history_, HistEvent *event, const char *line) {
    return history(history_, event, H_ENTER, line);
}

static inline int cdstore_history_load(History *history_, HistEvent *event, const char *path) {
    return history(history_, event, H_LOAD, path);
}

static inline int cdstore_history_save(History *history_, HistEvent *event, const char *path) {
    return history(history_, event, H_SAVE, path);
}
