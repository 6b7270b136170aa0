/* Calls the C that `quasidyn generate` wrote for the floating-base quadruped of robots/:
 * q holds the trunk position, its unit quaternion (x y z w) and the 12 joint angles
 * (QUADRUPED_FLOATING_NQ = 19); v, a and tau the trunk's linear and angular velocity in its
 * own frame, then the joints (QUADRUPED_FLOATING_NV = 18). Prints the wrench and torques that
 * hold the robot still, then checks identities between the generated functions. */
#include <math.h>
#include <stdio.h>

#include "quadruped_floating.h"

#define NQ QUADRUPED_FLOATING_NQ
#define NV QUADRUPED_FLOATING_NV

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
    /* Trunk 0.3 m up, turned 0.4 rad about z and 0.2 rad about x; legs bent. */
    double q[NQ] = {0.1, -0.2, 0.3, 0.0, 0.0, 0.0, 1.0};
    double v[NV], a[NV], tau[NV], h[NV], g[NV], M[NV * NV], back[NV], scaled[NQ];
    double up[3], R[9], p[3];
    const double cz = cos(0.2), sz = sin(0.2), cx = cos(0.1), sx = sin(0.1);
    int i, j, k;

    /* quaternion of Rz(0.4) Rx(0.2), x y z w */
    q[3] = cz * sx;
    q[4] = sz * sx;
    q[5] = sz * cx;
    q[6] = cz * cx;
    for (i = 0; i < NV - 6; i++) {
        q[7 + i] = (i % 3 == 0) ? 0.05 : (i % 3 == 1 ? 0.7 : -1.4);
    }
    for (i = 0; i < NV; i++) {
        v[i] = 0.3 - 0.05 * i;
        a[i] = -1.0 + 0.1 * i;
    }

    /* What holds it still: the trunk wrench (force, moment in the trunk frame) and torques. */
    quadruped_floating_gravity(q, g);
    printf("trunk force (%.3f, %.3f, %.3f) N, moment (%.3f, %.3f, %.3f) N m\n", g[0], g[1], g[2],
           g[3], g[4], g[5]);
    printf("%s: %.4f N m\n", quadruped_floating_joint_names[1], g[7]);
    quadruped_floating_forward_kinematics_fr_foot(q, R, p);
    printf("%s at (%.4f, %.4f, %.4f) m in the world\n", quadruped_floating_frame_names[0], p[0],
           p[1], p[2]);

    /* The trunk force is the weight, m g upwards, in trunk axes: m is the mass matrix's linear
     * block (m I), the world's up axis in trunk axes is the third row of R. */
    quadruped_floating_mass_matrix(q, M);
    up[0] = 2.0 * (q[3] * q[5] - q[6] * q[4]);
    up[1] = 2.0 * (q[4] * q[5] + q[6] * q[3]);
    up[2] = 1.0 - 2.0 * (q[3] * q[3] + q[4] * q[4]);
    for (k = 0; k < 3; k++) {
        expect_close("weight on the trunk", k, g[k], M[0] * 9.81 * up[k], 1e-9);
    }

    /* Inverse dynamics is M a + h; forward dynamics undoes it. */
    quadruped_floating_inverse_dynamics(q, v, a, tau);
    quadruped_floating_nonlinear_effects(q, v, h);
    quadruped_floating_forward_dynamics(q, v, tau, back);
    for (i = 0; i < NV; i++) {
        double sum = h[i];
        for (j = 0; j < NV; j++) {
            sum += M[i * NV + j] * a[j];
        }
        expect_close("M a + h", i, sum, tau[i], 1e-9);
        expect_close("forward(inverse(a))", i, back[i], a[i], 1e-9);
    }

    /* A quaternion that is not of unit length is normalised inside. */
    for (i = 0; i < NQ; i++) {
        scaled[i] = (i >= 3 && i < 7) ? 1.5 * q[i] : q[i];
    }
    quadruped_floating_inverse_dynamics(scaled, v, a, back);
    for (i = 0; i < NV; i++) {
        expect_close("scaled quaternion", i, back[i], tau[i], 1e-12);
    }

    if (failures != 0) {
        printf("%d identities failed\n", failures);
        return 1;
    }
    printf("ok: trunk force = weight, M a + h = tau, forward(inverse) = a, quaternion normalised\n");
    return 0;
}
