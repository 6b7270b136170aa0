/* Time per call of a robot's generated C, as tools/pinocchio_timing.cpp times Pinocchio's C++:
 * 256 random states (joint angles uniform in [-pi, pi], a floating base's position in [-1, 1]
 * and its quaternion normalised; v, a, tau uniform in [-2, 2]), best of 15 runs over them,
 * printed as ns per call. Built by tools/generated_timing.py against the C that
 * `quasidyn generate --lang c` wrote, with the flags given there (the same as Pinocchio's).
 *
 * The robot is chosen at compile time: -DROBOT=name (the generated functions' prefix),
 * -DHEADER='"name.h"', -DNQ=NAME_NQ -DNV=NAME_NV, and -DFLOATING=1 for a floating base; with
 * -DNC=NAME_NC (the code generated with contacts and `--only contacts`) only the two contact
 * functions are timed, the accelerations standing in for the joint forces; with -DWHOLE_BODY
 * (the code generated with `--only` WHOLE_BODY of tools/generated_timing.py) the Coriolis
 * matrix, the inverse mass matrix, the joint wrenches and the two energies. */
#define _POSIX_C_SOURCE 199309L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include HEADER

#define CAT2(a, b) a##_##b
#define CAT(a, b) CAT2(a, b)
#define FN(x) CAT(ROBOT, x)

#ifndef FLOATING
#define FLOATING 0
#endif

enum { STATES = 256, RUNS = 15 };

static double q_[STATES][NQ], v_[STATES][NV], a_[STATES][NV];
#ifdef NC
/* The contact Jacobian (NC x NV) may be larger than NV x NV. */
#define OUT (NC > NV ? NC * NV : NV * NV)
#else
#define OUT (NV * NV)
#endif
static double out1[OUT], out2[OUT], out3[OUT];
/* Folded into the printed checksum so that no call can be optimised away. */
static volatile double sink;

/* xorshift64*: the same states on every run. */
static unsigned long long rng_state = 0x9e3779b97f4a7c15ULL;
static double uniform(double lo, double hi)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    double u = (double)((rng_state * 2685821657736338717ULL) >> 11) / 9007199254740992.0;
    return lo + (hi - lo) * u;
}

static double now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static void states(void)
{
    for (int s = 0; s < STATES; s++) {
        int j = 0;
        if (FLOATING) {
            double n = 0.0;
            for (; j < 3; j++) {
                q_[s][j] = uniform(-1.0, 1.0);
            }
            for (; j < 7; j++) {
                q_[s][j] = uniform(-1.0, 1.0);
                n += q_[s][j] * q_[s][j];
            }
            for (int k = 3; k < 7; k++) {
                q_[s][k] /= sqrt(n);
            }
        }
        for (; j < NQ; j++) {
            q_[s][j] = uniform(-3.141592653589793, 3.141592653589793);
        }
        for (int k = 0; k < NV; k++) {
            v_[s][k] = uniform(-2.0, 2.0);
            a_[s][k] = uniform(-2.0, 2.0);
        }
    }
}

#define TIME(label, call)                                                              \
    do {                                                                               \
        double best = INFINITY;                                                        \
        for (int r = 0; r < RUNS; r++) {                                               \
            double start = now_ns();                                                   \
            for (int s = 0; s < STATES; s++) {                                         \
                const double *q = q_[s], *v = v_[s], *a = a_[s];                       \
                call;                                                                  \
                sink += out1[0];                                                       \
            }                                                                          \
            double ns = (now_ns() - start) / STATES;                                   \
            if (ns < best) {                                                           \
                best = ns;                                                             \
            }                                                                          \
        }                                                                              \
        printf("  %-40s %10.1f ns/call\n", label, best);                              \
    } while (0)

int main(void)
{
    states();
    printf("%s: generated C (nq %d, nv %d), %d random states, best of %d\n", HEADER, NQ, NV,
           STATES, RUNS);
#ifdef NC
    (void)out3;
    TIME("contact_jacobian", FN(contact_jacobian)(q, out1));
    TIME("contact_forward_dynamics", FN(contact_forward_dynamics)(q, v, a, out1, out2));
#elif defined(WHOLE_BODY)
    TIME("coriolis_matrix", FN(coriolis_matrix)(q, v, out1));
    TIME("mass_matrix_inverse", FN(mass_matrix_inverse)(q, out1));
    TIME("joint_wrenches", FN(joint_wrenches)(q, v, a, out1, out2));
    TIME("kinetic_energy", out1[0] = FN(kinetic_energy)(q, v));
    TIME("potential_energy", out1[0] = FN(potential_energy)(q));
    (void)out3;
#else
    TIME("inverse_dynamics", FN(inverse_dynamics)(q, v, a, out1));
    TIME("mass_matrix", FN(mass_matrix)(q, out1));
    TIME("forward_dynamics", FN(forward_dynamics)(q, v, a, out1));
    TIME("nonlinear_effects", FN(nonlinear_effects)(q, v, out1));
    TIME("gravity", FN(gravity)(q, out1));
    TIME("inverse_dynamics_derivatives", FN(inverse_dynamics_derivatives)(q, v, a, out1, out2));
    TIME("forward_dynamics_derivatives",
         FN(forward_dynamics_derivatives)(q, v, a, out1, out2, out3));
    TIME("mass_matrix_inverse", FN(mass_matrix_inverse)(q, out1));
#endif
    printf("  (checksum %g)\n", (double)sink);
    return 0;
}
