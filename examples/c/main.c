/* Calls the C that `quasidyn generate` wrote for the UR5: prints the joint torques for a fixed
 * state, then checks physics identities that tie the generated functions together. Exits 1 if
 * one fails. Built against gen/ur5.c (or the header-only gen-header-only/ur5.h). */
#include <math.h>
#include <stdio.h>

#include "ur5.h"

#define N UR5_DOF

static int failures = 0;

/* |a - b| <= tol * (1 + |b|), reported by name. */
static void expect_close(const char *what, int i, double a, double b, double tol)
{
    if (!(fabs(a - b) <= tol * (1.0 + fabs(b)))) {
        printf("FAIL %s[%d]: %.17g != %.17g\n", what, i, a, b);
        failures++;
    }
}

int main(void)
{
    const double q[N] = {0.3, -0.8, 1.0, -0.5, 0.6, 0.2};
    const double qd[N] = {0.5, -0.4, 0.3, 0.9, -0.7, 1.1};
    const double qdd[N] = {1.0, -2.0, 0.5, 3.0, -1.5, 2.5};
    const double zero[N] = {0};
    double tau[N], h[N], g[N], M[N * N], back[N], hc[N], ho[N], hg[N], J[6 * N];
    double R[9], p[3], pp[3], pm[3], qp[N], qm[N];
    const double step = 1e-6;
    double power = 0.0;
    int i, j;

    ur5_inverse_dynamics(q, qd, qdd, tau);
    printf("tau =");
    for (i = 0; i < N; i++) {
        printf(" %.6f", tau[i]);
    }
    printf("\n");

    /* Inverse dynamics is M(q) qdd + h(q, qd); forward dynamics undoes it. */
    ur5_mass_matrix(q, M);
    ur5_nonlinear_effects(q, qd, h);
    for (i = 0; i < N; i++) {
        double sum = h[i];
        for (j = 0; j < N; j++) {
            sum += M[i * N + j] * qdd[j];
            expect_close("M symmetric", i * N + j, M[i * N + j], M[j * N + i], 1e-12);
        }
        expect_close("M qdd + h", i, sum, tau[i], 1e-9);
    }
    ur5_forward_dynamics(q, qd, tau, back);
    for (i = 0; i < N; i++) {
        expect_close("forward(inverse(qdd))", i, back[i], qdd[i], 1e-9);
    }

    /* Gravity is h at rest; h splits into centrifugal, Coriolis, gyroscopic and gravity
     * parts, and the gyroscopic forces do no work. */
    ur5_gravity(q, g);
    ur5_nonlinear_effects(q, zero, back);
    ur5_centrifugal(q, qd, hc);
    ur5_coriolis(q, qd, ho);
    ur5_gyroscopic(q, qd, hg);
    for (i = 0; i < N; i++) {
        expect_close("h(q, 0)", i, back[i], g[i], 1e-12);
        expect_close("hc + ho + hg + g", i, hc[i] + ho[i] + hg[i] + g[i], h[i], 1e-9);
        power += hg[i] * qd[i];
    }
    expect_close("hg . qd", 0, power, 0.0, 1e-9);

    /* The Jacobian's linear rows are the derivative of the tool point along qd. */
    ur5_jacobian(q, J);
    for (i = 0; i < N; i++) {
        qp[i] = q[i] + step * qd[i];
        qm[i] = q[i] - step * qd[i];
    }
    ur5_forward_kinematics(qp, R, pp);
    ur5_forward_kinematics(qm, R, pm);
    ur5_forward_kinematics(q, R, p);
    for (i = 0; i < 3; i++) {
        double v = 0.0;
        for (j = 0; j < N; j++) {
            v += J[i * N + j] * qd[j];
        }
        expect_close("J qd", i, v, (pp[i] - pm[i]) / (2.0 * step), 1e-6);
    }

    if (failures != 0) {
        printf("%d identities failed\n", failures);
        return 1;
    }
    printf("ok: M qdd + h = tau, forward(inverse) = qdd, h split, hg . qd = 0, J = dp/dq\n");
    return 0;
}
