/* Time per call of MuJoCo's own C against a model's generated C, in one process, as
 * tools/generated_timing.c times the generated C alone: 256 random states, best of 15 runs over
 * them, printed as ns per call. Built and run by tools/mujoco_timing.py, which writes the C of
 * `quasidyn generate MODEL.xml --lang c` and compiles this file with it (gcc -O3 -march=native)
 * against the libmujoco that the `mujoco` Python wheel ships.
 *
 * Timed, per state (MuJoCo's state copied into mjData first, as a caller holding its states in
 * arrays must; the copy alone is timed too):
 *   MuJoCo inverse dynamics   mj_kinematics, mj_comPos, mj_comVel, mj_rne(m, d, 1, tau), then
 *                             tau += armature .* qacc (mj_rne leaves the armature out): each
 *                             dof's dof_armature plus, as MuJoCo 4 adds to the mass matrix, the
 *                             actuator_armature * gear^2 of the actuators driving its joint
 *                             (summed once, before timing);
 *   MuJoCo mass matrix        mj_kinematics, mj_comPos, mj_crb, mj_fullM (dense nv x nv);
 *   generated                 ROBOT_inverse_dynamics(q, v, a, tau) and ROBOT_mass_matrix(q, M).
 *
 * Before timing, on the first CHECKED states: MuJoCo's inverse dynamics as above equals
 * mj_inverse (passive forces and constraints disabled), mj_fullM's M is symmetric and
 * M qacc + qfrc_bias (mj_rne without the acceleration term) equals that inverse dynamics, and
 * the generated functions equal MuJoCo's at 1e-9 relative (|x - y| <= 1e-9 max(1, |y|_inf));
 * otherwise the program prints the difference and exits with status 1.
 *
 * Usage: mujoco_timing MODEL.xml. The robot is chosen at compile time: -DROBOT=name (the
 * generated functions' prefix), -DHEADER='"name.h"', -DNQ=... -DNV=... (must equal MuJoCo's
 * nq and nv). */
#define _POSIX_C_SOURCE 199309L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <mujoco/mujoco.h>

#include HEADER

#define CAT2(a, b) a##_##b
#define CAT(a, b) CAT2(a, b)
#define FN(x) CAT(ROBOT, x)

enum { STATES = 256, RUNS = 15, CHECKED = 8 };

static double q_[STATES][NQ], v_[STATES][NV], a_[STATES][NV];
static double out1[NV * NV], out2[NV * NV], bias[NV];
/* Each dof's armature: its own and that of the actuators driving it (see the top). */
static double armature[NV];
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

static void fail(const char *what)
{
    fprintf(stderr, "mujoco_timing: %s\n", what);
    exit(1);
}

/* Random states in MuJoCo's layout: a free joint's position in [-1, 1]^3 and a unit
 * quaternion, a ball joint's unit quaternion, hinges in [-pi, pi] (within a turn), slides in
 * [-1, 1]; qvel and qacc in [-2, 2]. */
static void states(const mjModel *m)
{
    for (int s = 0; s < STATES; s++) {
        for (int j = 0; j < m->njnt; j++) {
            double *q = q_[s] + m->jnt_qposadr[j];
            int quat = 0;
            switch (m->jnt_type[j]) {
            case mjJNT_FREE:
                for (int k = 0; k < 3; k++) {
                    q[k] = uniform(-1.0, 1.0);
                }
                q += 3;
                quat = 1;
                break;
            case mjJNT_BALL:
                quat = 1;
                break;
            case mjJNT_SLIDE:
                q[0] = uniform(-1.0, 1.0);
                break;
            default:
                q[0] = uniform(-3.141592653589793, 3.141592653589793);
                break;
            }
            if (quat) {
                double n = 0.0;
                for (int k = 0; k < 4; k++) {
                    q[k] = uniform(-1.0, 1.0);
                    n += q[k] * q[k];
                }
                for (int k = 0; k < 4; k++) {
                    q[k] /= sqrt(n);
                }
            }
        }
        for (int k = 0; k < NV; k++) {
            v_[s][k] = uniform(-2.0, 2.0);
            a_[s][k] = uniform(-2.0, 2.0);
        }
    }
}

static void set_state(mjData *d, int s)
{
    memcpy(d->qpos, q_[s], sizeof q_[s]);
    memcpy(d->qvel, v_[s], sizeof v_[s]);
    memcpy(d->qacc, a_[s], sizeof a_[s]);
}

static void mujoco_inverse_dynamics(const mjModel *m, mjData *d, double *tau)
{
    mj_kinematics(m, d);
    mj_comPos(m, d);
    mj_comVel(m, d);
    mj_rne(m, d, 1, tau);
    for (int i = 0; i < NV; i++) {
        tau[i] += armature[i] * d->qacc[i];
    }
}

static void mujoco_mass_matrix(const mjModel *m, mjData *d, double *mass)
{
    mj_kinematics(m, d);
    mj_comPos(m, d);
    mj_crb(m, d);
    mj_fullM(m, d, mass);
}

/* max |x - y| / max(1, |y|_inf) */
static double relative(const double *x, const double *y, int n)
{
    double diff = 0.0, scale = 1.0;
    for (int i = 0; i < n; i++) {
        diff = fmax(diff, fabs(x[i] - y[i]));
        scale = fmax(scale, fabs(y[i]));
    }
    return diff / scale;
}

static void check(mjModel *m, mjData *d)
{
    double worst[5] = {0.0};
    static double inverse[NV];
    for (int s = 0; s < CHECKED; s++) {
        /* mj_inverse without passive forces and constraints: M qacc + qfrc_bias. */
        int flags = m->opt.disableflags;
        m->opt.disableflags |= mjDSBL_SPRING | mjDSBL_DAMPER | mjDSBL_CONSTRAINT;
        set_state(d, s);
        mj_inverse(m, d);
        memcpy(inverse, d->qfrc_inverse, sizeof inverse);
        m->opt.disableflags = flags;

        set_state(d, s);
        mujoco_inverse_dynamics(m, d, out1);
        worst[0] = fmax(worst[0], relative(out1, inverse, NV));
        FN(inverse_dynamics)(q_[s], v_[s], a_[s], out2);
        worst[1] = fmax(worst[1], relative(out2, out1, NV));

        set_state(d, s);
        mujoco_mass_matrix(m, d, out1);
        for (int i = 0; i < NV; i++) {
            for (int j = 0; j < NV; j++) {
                out2[i * NV + j] = out1[j * NV + i];
            }
        }
        worst[2] = fmax(worst[2], relative(out2, out1, NV * NV));
        mj_comVel(m, d);
        mj_rne(m, d, 0, bias);
        for (int i = 0; i < NV; i++) {
            double t = bias[i];
            for (int j = 0; j < NV; j++) {
                t += out1[i * NV + j] * a_[s][j];
            }
            out2[i] = t;
        }
        worst[3] = fmax(worst[3], relative(out2, inverse, NV));
        FN(mass_matrix)(q_[s], out2);
        worst[4] = fmax(worst[4], relative(out2, out1, NV * NV));
    }
    static const char *const what[5] = {
        "mj_rne + armature vs mj_inverse", "generated vs MuJoCo inverse dynamics",
        "mj_fullM asymmetry", "M qacc + qfrc_bias vs mj_inverse",
        "generated vs MuJoCo mass matrix",
    };
    int bad = 0;
    printf("  checked on %d states, largest relative difference:", CHECKED);
    for (int k = 0; k < 5; k++) {
        printf("%s %s %.1e", k ? "," : "", what[k], worst[k]);
        bad |= !(worst[k] <= 1e-9);
    }
    printf("\n");
    if (bad) {
        fflush(stdout);
        fail("MuJoCo and the generated code disagree above 1e-9 relative (see the line above)");
    }
}

/* The timed calls, in the order they are printed. Each of the RUNS runs times every one of
 * them over the STATES states in turn (MuJoCo and the generated code alternating, so that each
 * pair is timed under the same load), and the best run of each is kept. */
enum { COPY, MUJOCO_ID, GENERATED_ID, MUJOCO_M, GENERATED_M, TIMED };
static const char *const label[TIMED] = {
    "copy of the state", "mujoco inverse_dynamics", "generated inverse_dynamics",
    "mujoco mass_matrix", "generated mass_matrix",
};

static void timed_call(int k, const mjModel *m, mjData *d, int s)
{
    switch (k) {
    case COPY:
        set_state(d, s);
        out1[0] = d->qacc[0];
        break;
    case MUJOCO_ID:
        set_state(d, s);
        mujoco_inverse_dynamics(m, d, out1);
        break;
    case GENERATED_ID:
        FN(inverse_dynamics)(q_[s], v_[s], a_[s], out1);
        break;
    case MUJOCO_M:
        memcpy(d->qpos, q_[s], sizeof q_[s]);
        mujoco_mass_matrix(m, d, out1);
        break;
    default:
        FN(mass_matrix)(q_[s], out1);
        break;
    }
}

static void time_all(const mjModel *m, mjData *d)
{
    double best[TIMED];
    for (int k = 0; k < TIMED; k++) {
        best[k] = INFINITY;
    }
    for (int r = 0; r < RUNS; r++) {
        for (int k = 0; k < TIMED; k++) {
            double start = now_ns();
            for (int s = 0; s < STATES; s++) {
                timed_call(k, m, d, s);
                sink += out1[0];
            }
            best[k] = fmin(best[k], (now_ns() - start) / STATES);
        }
    }
    for (int k = 0; k < TIMED; k++) {
        printf("  %-28s %10.1f ns/call\n", label[k], best[k]);
    }
}

int main(int argc, char **argv)
{
    char error[1000] = "";
    if (argc != 2) {
        fail("usage: mujoco_timing MODEL.xml");
    }
    mjModel *m = mj_loadXML(argv[1], NULL, error, sizeof error);
    if (!m) {
        fprintf(stderr, "mujoco_timing: %s: %s\n", argv[1], error);
        return 1;
    }
    if (m->nq != NQ || m->nv != NV) {
        fprintf(stderr, "mujoco_timing: MuJoCo has nq %ld, nv %ld; the generated code %d, %d\n",
                (long)m->nq, (long)m->nv, NQ, NV);
        return 1;
    }
    for (int i = 0; i < NV; i++) {
        armature[i] = m->dof_armature[i];
    }
    for (int k = 0; k < m->nu; k++) {
        if (m->actuator_armature[k] == 0.0) {
            continue;
        }
        int trn = m->actuator_trntype[k];
        if (trn != mjTRN_JOINT && trn != mjTRN_JOINTINPARENT) {
            fail("actuator armature through a transmission that is not a joint");
        }
        double gear = m->actuator_gear[6 * k];
        armature[m->jnt_dofadr[m->actuator_trnid[2 * k]]] += m->actuator_armature[k] * gear * gear;
    }
    mjData *d = mj_makeData(m);
    states(m);
    printf("%s: MuJoCo %s against generated C (nq %d, nv %d), %d random states, best of %d\n",
           HEADER, mj_versionString(), NQ, NV, STATES, RUNS);
    check(m, d);
    time_all(m, d);
    printf("  (checksum %g)\n", (double)sink);
    mj_deleteData(d);
    mj_deleteModel(m);
    return 0;
}
