/* Calls the C that `quasidyn generate` wrote for the hand of robots/ (a tree: four fingers of
 * four joints on a palm): prints the joint and fingertip names and a fingertip position, then
 * checks that the mass matrix has exact zeros between fingers, that the generated functions
 * agree with each other, and the fingertip Jacobian against differences. Exits 1 on failure. */
#include <math.h>
#include <stdio.h>

#include "hand.h"

#define N HAND_DOF

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
    double q[N], qd[N], qdd[N], tau[N], h[N], g[N], M[N * N], back[N];
    double hc[N], ho[N], hg[N], J[6 * N], qp[N], qm[N];
    double R[9], p[3], pp[3], pm[3];
    const double step = 1e-6;
    double power = 0.0;
    int i, j;

    for (i = 0; i < N; i++) {
        q[i] = 0.1 + 0.05 * i;
        qd[i] = 0.7 - 0.1 * i;
        qdd[i] = 1.5 - 0.2 * i;
    }
    printf("%d joints:", N);
    for (i = 0; i < N; i++) {
        printf(" %s", hand_joint_names[i]);
    }
    printf("\n");
    hand_forward_kinematics_link_15_0_tip(q, R, p);
    printf("%s at (%.4f, %.4f, %.4f) m\n", hand_frame_names[3], p[0], p[1], p[2]);

    /* Joints of different fingers (0-3, 4-7, 8-11, 12-15) do not couple: exact zeros. */
    hand_mass_matrix(q, M);
    for (i = 0; i < N; i++) {
        for (j = 0; j < N; j++) {
            if (i / 4 != j / 4 && M[i * N + j] != 0.0) {
                printf("FAIL M[%d][%d] = %g between fingers\n", i, j, M[i * N + j]);
                failures++;
            }
        }
    }

    /* Inverse dynamics is M(q) qdd + h(q, qd); forward dynamics undoes it; h splits into
     * centrifugal, Coriolis, gyroscopic and gravity parts, the gyroscopic doing no work. */
    hand_inverse_dynamics(q, qd, qdd, tau);
    hand_nonlinear_effects(q, qd, h);
    hand_forward_dynamics(q, qd, tau, back);
    hand_gravity(q, g);
    hand_centrifugal(q, qd, hc);
    hand_coriolis(q, qd, ho);
    hand_gyroscopic(q, qd, hg);
    for (i = 0; i < N; i++) {
        double sum = h[i];
        for (j = 0; j < N; j++) {
            sum += M[i * N + j] * qdd[j];
        }
        expect_close("M qdd + h", i, sum, tau[i], 1e-9);
        expect_close("forward(inverse(qdd))", i, back[i], qdd[i], 1e-9);
        expect_close("hc + ho + hg + g", i, hc[i] + ho[i] + hg[i] + g[i], h[i], 1e-9);
        power += hg[i] * qd[i];
    }
    expect_close("hg . qd", 0, power, 0.0, 1e-9);

    /* The thumb tip's Jacobian: linear rows = derivative of its position along qd. */
    hand_jacobian_link_15_0_tip(q, J);
    for (i = 0; i < N; i++) {
        qp[i] = q[i] + step * qd[i];
        qm[i] = q[i] - step * qd[i];
    }
    hand_forward_kinematics_link_15_0_tip(qp, R, pp);
    hand_forward_kinematics_link_15_0_tip(qm, R, pm);
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
    printf("ok: M zero between fingers, M qdd + h = tau, forward(inverse) = qdd, h split, "
           "hg . qd = 0, J = dp/dq\n");
    return 0;
}
