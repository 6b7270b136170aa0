/* Calls the C that `quasidyn generate` wrote for the floating-base quadruped of robots/:
 * q holds the trunk position, its unit quaternion (x y z w) and the 12 joint angles
 * (QUADRUPED_FLOATING_NQ = 19); v, a and tau the trunk's linear and angular velocity in its
 * own frame, then the joints (QUADRUPED_FLOATING_NV = 18). Prints the wrench and torques that
 * hold the robot still, then checks identities between the generated functions; then its
 * centroidal momentum, and its accelerations and contact forces with two feet (FR and RL, point
 * contacts: QUADRUPED_FLOATING_NC = 6 rows) on the ground. */
#include <math.h>
#include <stdio.h>

#include "quadruped_floating.h"

#define NQ QUADRUPED_FLOATING_NQ
#define NV QUADRUPED_FLOATING_NV
#define NC QUADRUPED_FLOATING_NC

static int failures = 0;

/* |a - b| <= tol * (1 + |b|), reported by name. */
static void expect_close(const char *what, int i, double a, double b, double tol)
{
    if (!(fabs(a - b) <= tol * (1.0 + fabs(b)))) {
        printf("FAIL %s[%d]: %.17g != %.17g\n", what, i, a, b);
        failures++;
    }
}

/* The centroidal momentum at (q, v), and the motion with the FR and RL feet held on the ground
 * while the joints hold the torques that would keep the robot still (the trunk unactuated). */
static void contacts(const double q[NQ], const double v[NV])
{
    double Ag[6 * NV], hg[6], dhg[6], g[NV], tau[NV], a[NV], lambda[NC], Jc[NC * NV];
    double M[NV * NV], h[NV], gamma[NC], acc[6], rate[6];
    int i, j, k;

    /* Linear momentum, then angular momentum about the centre of mass, world axes. */
    quadruped_floating_centroidal_momentum(q, v, hg);
    quadruped_floating_centroidal_momentum_matrix(q, Ag);
    printf("momentum (%.4f, %.4f, %.4f) kg m/s, about the centre of mass (%.4f, %.4f, %.4f) "
           "kg m^2/s\n",
           hg[0], hg[1], hg[2], hg[3], hg[4], hg[5]);
    for (i = 0; i < 6; i++) {
        double sum = 0.0;
        for (j = 0; j < NV; j++) {
            sum += Ag[i * NV + j] * v[j];
        }
        expect_close("Ag v", i, sum, hg[i], 1e-9);
    }

    quadruped_floating_gravity(q, g);
    for (i = 0; i < NV; i++) {
        tau[i] = i < 6 ? 0.0 : g[i];
    }
    quadruped_floating_contact_forward_dynamics(q, v, tau, a, lambda);
    for (k = 0; k < QUADRUPED_FLOATING_NCONTACTS; k++) {
        printf("%s: force (%.3f, %.3f, %.3f) N\n", quadruped_floating_contact_names[k],
               lambda[3 * k], lambda[3 * k + 1], lambda[3 * k + 2]);
    }

    /* The feet do not accelerate: Jc a + gamma = 0, gamma their acceleration at a = 0. */
    quadruped_floating_contact_jacobian(q, Jc);
    quadruped_floating_frame_acceleration_bias_fr_foot(q, v, acc);
    for (i = 0; i < 3; i++) {
        gamma[i] = acc[i];
    }
    quadruped_floating_frame_acceleration_bias_rl_foot(q, v, acc);
    for (i = 0; i < 3; i++) {
        gamma[3 + i] = acc[i];
    }
    for (i = 0; i < NC; i++) {
        double sum = gamma[i];
        for (j = 0; j < NV; j++) {
            sum += Jc[i * NV + j] * a[j];
        }
        expect_close("Jc a + gamma", i, sum, 0.0, 1e-9);
    }

    /* The dynamics with the contact forces: M a + h = tau + Jc^T lambda. */
    quadruped_floating_mass_matrix(q, M);
    quadruped_floating_nonlinear_effects(q, v, h);
    for (i = 0; i < NV; i++) {
        double lhs = h[i], rhs = tau[i];
        for (j = 0; j < NV; j++) {
            lhs += M[i * NV + j] * a[j];
        }
        for (k = 0; k < NC; k++) {
            rhs += Jc[k * NV + i] * lambda[k];
        }
        expect_close("M a + h = tau + Jc^T lambda", i, lhs, rhs, 1e-9);
    }

    /* The linear momentum changes at the rate of the external forces: the two feet's and the
     * weight (M[0] is the total mass): Ag a + dhg. */
    quadruped_floating_centroidal_momentum_bias(q, v, dhg);
    for (i = 0; i < 6; i++) {
        rate[i] = dhg[i];
        for (j = 0; j < NV; j++) {
            rate[i] += Ag[i * NV + j] * a[j];
        }
    }
    for (i = 0; i < 3; i++) {
        double force = lambda[i] + lambda[3 + i] + (i == 2 ? -9.81 * M[0] : 0.0);
        expect_close("momentum rate = forces", i, rate[i], force, 1e-9);
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

    contacts(q, v);

    if (failures != 0) {
        printf("%d identities failed\n", failures);
        return 1;
    }
    printf("ok: trunk force = weight, M a + h = tau, forward(inverse) = a, quaternion normalised, "
           "Ag v = hg, contacts held, M a + h = tau + Jc^T lambda, momentum rate = forces\n");
    return 0;
}
