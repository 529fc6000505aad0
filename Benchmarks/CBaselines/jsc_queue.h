#ifndef SESSIONBRIDGE_CBASELINES_JSC_QUEUE_H
#define SESSIONBRIDGE_CBASELINES_JSC_QUEUE_H
/* A bounded FIFO between two threads: pthread mutex + condition variable, with an optional
 * poll before blocking (spin-before-block), as the JavaScriptCore thread-hop baselines use it. */

#include <JavaScriptCore/JavaScript.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

/* One call in flight: the protected `resolve` of its promise and the number it carries. */
typedef struct {
    JSObjectRef resolve;
    double value;
} cb_item;

enum { CB_QUEUE_CAPACITY = 1024 };

typedef struct {
    pthread_mutex_t mutex;
    pthread_cond_t cond;
    cb_item items[CB_QUEUE_CAPACITY];
    size_t head;
    size_t count;
    int waiting;
    int stopped;
    atomic_uint_fast64_t pushes;
} cb_queue;

void cb_queue_init(cb_queue *queue);
void cb_queue_destroy(cb_queue *queue);
/* Appends `count` items; wakes the consumer if it sleeps. */
void cb_queue_push(cb_queue *queue, const cb_item *items, size_t count);
/* Takes every item queued (up to `max`), polling up to `spin_ns` and then blocking while the
 * queue is empty. Returns 0 only once the queue is stopped and empty. */
size_t cb_queue_pop_all(cb_queue *queue, cb_item *out, size_t max, int64_t spin_ns);
/* Makes the consumer return 0 once the queue is empty. */
void cb_queue_stop(cb_queue *queue);
/* CLOCK_MONOTONIC in nanoseconds. */
int64_t cb_now_ns(void);

#endif
