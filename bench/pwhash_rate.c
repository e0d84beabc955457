/* The raw argon2id rate for bench/auth.sh: how many crypto_pwhash_str_verify calls per second this machine does,
 * the operation a sign-in runs (Sources/KuraAuth/PasswordHasher.swift), with nothing around it.
 *
 * Usage: pwhash_rate OPSLIMIT MEMLIMIT THREADS SECONDS PASSWORD
 * Makes one argon2id hash of PASSWORD with crypto_pwhash_str_alg(OPSLIMIT, MEMLIMIT, ARGON2ID13), as kura does at
 * sign-up, then THREADS threads verify PASSWORD against it until SECONDS have passed (each finishes the call it is
 * in). Prints
 *     hash=<the encoded hash>
 *     pwhash_per_s=<verifications completed / seconds from the start until the last thread finished>
 *     verifications=<n> seconds=<s>
 * Exits 1 if a verification fails or memory runs out. Built by bench/auth.sh: cc -O2 -pthread … -lsodium. */
#include <pthread.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static char hash[crypto_pwhash_STRBYTES];
static const char *password;
static double deadline;

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void *verify_until_deadline(void *count) {
    unsigned long n = 0;
    do {
        if (crypto_pwhash_str_verify(hash, password, strlen(password)) != 0) {
            fprintf(stderr, "pwhash_rate: crypto_pwhash_str_verify failed (wrong password or out of memory)\n");
            exit(1);
        }
        n++;
    } while (now() < deadline);
    *(unsigned long *)count = n;
    return NULL;
}

int main(int argc, char **argv) {
    if (argc != 6) {
        fprintf(stderr, "usage: %s OPSLIMIT MEMLIMIT THREADS SECONDS PASSWORD\n", argv[0]);
        return 2;
    }
    unsigned long long opslimit = strtoull(argv[1], NULL, 10);
    size_t memlimit = (size_t)strtoull(argv[2], NULL, 10);
    int threads = atoi(argv[3]);
    double seconds = atof(argv[4]);
    password = argv[5];
    if (threads < 1 || seconds <= 0) {
        fprintf(stderr, "pwhash_rate: THREADS must be at least 1 and SECONDS above 0\n");
        return 2;
    }
    if (sodium_init() < 0) {
        fprintf(stderr, "pwhash_rate: sodium_init failed\n");
        return 1;
    }
    if (crypto_pwhash_str_alg(hash, password, strlen(password), opslimit, memlimit, crypto_pwhash_ALG_ARGON2ID13) != 0) {
        fprintf(stderr, "pwhash_rate: crypto_pwhash_str_alg(%llu, %zu) failed (limits out of range or out of memory)\n",
                opslimit, memlimit);
        return 1;
    }

    pthread_t *ids = calloc((size_t)threads, sizeof *ids);
    unsigned long *counts = calloc((size_t)threads, sizeof *counts);
    double start = now();
    deadline = start + seconds;
    for (int i = 0; i < threads; i++) {
        if (pthread_create(&ids[i], NULL, verify_until_deadline, &counts[i]) != 0) {
            fprintf(stderr, "pwhash_rate: pthread_create failed\n");
            return 1;
        }
    }
    unsigned long total = 0;
    for (int i = 0; i < threads; i++) {
        pthread_join(ids[i], NULL);
        total += counts[i];
    }
    double elapsed = now() - start;
    printf("hash=%s\npwhash_per_s=%.2f\nverifications=%lu seconds=%.2f\n", hash, total / elapsed, total, elapsed);
    return 0;
}
