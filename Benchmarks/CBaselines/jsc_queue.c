#include "jsc_queue.h"

#include <time.h>

int64_t cb_now_ns(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (int64_t)now.tv_sec * 1000000000 + now.tv_nsec;
}

void cb_queue_init(cb_queue *queue) {
    pthread_mutex_init(&queue->mutex, NULL);
    pthread_cond_init(&queue->cond, NULL);
    queue->head = 0;
    queue->count = 0;
    queue->waiting = 0;
    queue->stopped = 0;
    atomic_init(&queue->pushes, 0);
}

void cb_queue_destroy(cb_queue *queue) {
    pthread_cond_destroy(&queue->cond);
    pthread_mutex_destroy(&queue->mutex);
}

void cb_queue_push(cb_queue *queue, const cb_item *items, size_t count) {
    pthread_mutex_lock(&queue->mutex);
    for (size_t i = 0; i < count && queue->count < CB_QUEUE_CAPACITY; i++) {
        queue->items[(queue->head + queue->count) % CB_QUEUE_CAPACITY] = items[i];
        queue->count++;
    }
    if (queue->waiting) pthread_cond_signal(&queue->cond);
    pthread_mutex_unlock(&queue->mutex);
    atomic_fetch_add_explicit(&queue->pushes, 1, memory_order_release);
}

static size_t take(cb_queue *queue, cb_item *out, size_t max) {
    size_t taken = 0;
    while (queue->count > 0 && taken < max) {
        out[taken++] = queue->items[queue->head];
        queue->head = (queue->head + 1) % CB_QUEUE_CAPACITY;
        queue->count--;
    }
    return taken;
}

size_t cb_queue_pop_all(cb_queue *queue, cb_item *out, size_t max, int64_t spin_ns) {
    uint_fast64_t seen = atomic_load_explicit(&queue->pushes, memory_order_acquire);
    pthread_mutex_lock(&queue->mutex);
    size_t taken = take(queue, out, max);
    pthread_mutex_unlock(&queue->mutex);
    if (taken > 0) return taken;
    if (spin_ns > 0) {
        int64_t end = cb_now_ns() + spin_ns;
        while (atomic_load_explicit(&queue->pushes, memory_order_acquire) == seen && cb_now_ns() < end) {
        }
    }
    pthread_mutex_lock(&queue->mutex);
    while (queue->count == 0 && !queue->stopped) {
        queue->waiting = 1;
        pthread_cond_wait(&queue->cond, &queue->mutex);
    }
    queue->waiting = 0;
    taken = take(queue, out, max);
    pthread_mutex_unlock(&queue->mutex);
    return taken;
}

void cb_queue_stop(cb_queue *queue) {
    pthread_mutex_lock(&queue->mutex);
    queue->stopped = 1;
    pthread_cond_broadcast(&queue->cond);
    pthread_mutex_unlock(&queue->mutex);
}
