// Pinocchio's own C++ time per call, for the README's comparisons (no Python in the loop).
// Built and run by tools/pinocchio_timing.py, which writes each model with Model::saveToBinary
// (the same model the fixtures come from) and passes the files here:
//   pinocchio_timing NAME=MODEL.bin [...]
// or, for a robot with rigid contacts (frame ids and 3 for a point contact, 6 for a 6d one),
//   pinocchio_timing NAME=MODEL.bin@FRAME:3,FRAME:6
// which times the contact Jacobian and constraintDynamics only.
// For each model: 256 random states (q uniform in [-pi, pi], a floating base's position in
// [-1, 1] and its quaternion normalised; v, a, tau uniform in [-2, 2]), best of 15 runs of
// each algorithm over all states, in ns per call.

#include <pinocchio/algorithm/aba-derivatives.hpp>
#include <pinocchio/algorithm/aba.hpp>
#include <pinocchio/algorithm/center-of-mass.hpp>
#include <pinocchio/algorithm/centroidal.hpp>
#include <pinocchio/algorithm/constrained-dynamics.hpp>
#include <pinocchio/algorithm/crba.hpp>
#include <pinocchio/algorithm/frames.hpp>
#include <pinocchio/algorithm/jacobian.hpp>
#include <pinocchio/algorithm/kinematics.hpp>
#include <pinocchio/algorithm/regressor.hpp>
#include <pinocchio/algorithm/rnea-derivatives.hpp>
#include <pinocchio/algorithm/rnea.hpp>
#include <pinocchio/algorithm/energy.hpp>
#include <pinocchio/multibody.hpp>
#include <pinocchio/serialization.hpp>

#include <chrono>
#include <cstdio>
#include <functional>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace {

constexpr int kStates = 256;
constexpr int kRuns = 15;

struct State {
  Eigen::VectorXd q, v, a, tau;
};

double best_ns(const std::vector<State>& states, const std::function<void(const State&)>& call) {
  double best = std::numeric_limits<double>::infinity();
  for (int run = 0; run < kRuns; ++run) {
    const auto start = std::chrono::steady_clock::now();
    for (const State& s : states) call(s);
    const auto stop = std::chrono::steady_clock::now();
    const double ns = std::chrono::duration<double, std::nano>(stop - start).count() / states.size();
    if (ns < best) best = ns;
  }
  return best;
}

// The contact functions: the contacts' rows of getFrameJacobian (LOCAL_WORLD_ALIGNED) after
// computeJointJacobians, as contact_jacobian returns them, and constraintDynamics with
// RigidConstraintModel CONTACT_3D / CONTACT_6D in LOCAL_WORLD_ALIGNED, no stabilisation, the
// exact solve (mu = 0), after initConstraintDynamics, as tools/contact_reference.py writes the
// fixtures of contact_forward_dynamics.
void time_contacts(const pinocchio::Model& model, pinocchio::Data& data,
                   const std::vector<State>& states,
                   const std::vector<std::pair<pinocchio::FrameIndex, int>>& contacts) {
  const auto lwa = pinocchio::LOCAL_WORLD_ALIGNED;
  std::vector<pinocchio::RigidConstraintModel,
              Eigen::aligned_allocator<pinocchio::RigidConstraintModel>>
      cmodels;
  std::vector<pinocchio::RigidConstraintData,
              Eigen::aligned_allocator<pinocchio::RigidConstraintData>>
      cdatas;
  int nc = 0;
  std::printf("  (contacts:");
  for (const auto& c : contacts) {
    const pinocchio::Frame& f = model.frames[c.first];
    cmodels.emplace_back(c.second == 3 ? pinocchio::CONTACT_3D : pinocchio::CONTACT_6D, model,
                         f.parentJoint, f.placement, 0, pinocchio::SE3::Identity(), lwa);
    std::printf(" %s%s", f.name.c_str(), c.second == 6 ? ":6d" : "");
    nc += c.second;
  }
  std::printf(", nc %d)\n", nc);
  for (const auto& m : cmodels) cdatas.emplace_back(m);
  pinocchio::initConstraintDynamics(model, data, cmodels, cdatas);
  pinocchio::ProximalSettings prox(1e-12, 0.0, 1);
  pinocchio::Data::Matrix6x frame_j = pinocchio::Data::Matrix6x::Zero(6, model.nv);
  Eigen::MatrixXd jc = Eigen::MatrixXd::Zero(nc, model.nv);
  const std::vector<std::pair<const char*, std::function<void(const State&)>>> rows = {
      {"computeJointJacobians + getFrameJacobian",
       [&](const State& s) {
         pinocchio::computeJointJacobians(model, data, s.q);
         int row = 0;
         for (const auto& c : contacts) {
           frame_j.setZero();
           pinocchio::getFrameJacobian(model, data, c.first, lwa, frame_j);
           jc.middleRows(row, c.second) = frame_j.topRows(c.second);
           row += c.second;
         }
       }},
      {"constraintDynamics",
       [&](const State& s) {
         pinocchio::constraintDynamics(model, data, s.q, s.v, s.tau, cmodels, cdatas, prox);
       }},
  };
  for (const auto& row : rows) {
    std::printf("  %-40s %10.1f ns/call\n", row.first, best_ns(states, row.second));
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::mt19937_64 rng(20261123);
  std::uniform_real_distribution<double> angle(-3.141592653589793, 3.141592653589793);
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  std::uniform_real_distribution<double> rate(-2.0, 2.0);
  for (int k = 1; k < argc; ++k) {
    const std::string arg = argv[k];
    const auto eq = arg.find('=');
    const std::string name = arg.substr(0, eq);
    const auto at = arg.find('@', eq);
    // (frame id, rows) of each contact, in the generated functions' order.
    std::vector<std::pair<pinocchio::FrameIndex, int>> contacts;
    if (at != std::string::npos) {
      std::stringstream list(arg.substr(at + 1));
      std::string item;
      while (std::getline(list, item, ',')) {
        const auto colon = item.find(':');
        contacts.emplace_back(std::stoul(item.substr(0, colon)), std::stoi(item.substr(colon + 1)));
      }
    }
    pinocchio::Model model;
    model.loadFromBinary(arg.substr(eq + 1, at == std::string::npos ? std::string::npos
                                                                     : at - eq - 1));
    pinocchio::Data data(model);
    const bool floating = model.nq != model.nv;
    std::vector<State> states(kStates);
    for (State& s : states) {
      s.q.resize(model.nq);
      int j = 0;
      if (floating) {
        for (; j < 3; ++j) s.q[j] = unit(rng);
        Eigen::Vector4d quat(unit(rng), unit(rng), unit(rng), unit(rng));
        quat.normalize();
        s.q.segment<4>(3) = quat;
        j = 7;
      }
      for (; j < model.nq; ++j) s.q[j] = angle(rng);
      s.v.resize(model.nv);
      s.a.resize(model.nv);
      s.tau.resize(model.nv);
      for (int i = 0; i < model.nv; ++i) {
        s.v[i] = rate(rng);
        s.a[i] = rate(rng);
        s.tau[i] = rate(rng);
      }
    }
    std::printf("%s: Pinocchio C++ (%d joints, nq %d, nv %d), %d random states, best of %d\n",
                name.c_str(), model.njoints - 1, model.nq, model.nv, kStates, kRuns);
    if (!contacts.empty()) {
      time_contacts(model, data, states, contacts);
      continue;
    }
    const Eigen::VectorXd zero = Eigen::VectorXd::Zero(model.nv);
    const auto last_frame = static_cast<pinocchio::FrameIndex>(model.nframes - 1);
    const auto lwa = pinocchio::LOCAL_WORLD_ALIGNED;
    pinocchio::Data::Matrix6x dj = pinocchio::Data::Matrix6x::Zero(6, model.nv);
    std::printf("  (frame functions: frame %s)\n", model.frames[last_frame].name.c_str());
    const std::vector<std::pair<const char*, std::function<void(const State&)>>> rows = {
        {"rnea", [&](const State& s) { pinocchio::rnea(model, data, s.q, s.v, s.a); }},
        {"crba", [&](const State& s) { pinocchio::crba(model, data, s.q); }},
        {"aba", [&](const State& s) { pinocchio::aba(model, data, s.q, s.v, s.tau); }},
        {"computeRNEADerivatives",
         [&](const State& s) { pinocchio::computeRNEADerivatives(model, data, s.q, s.v, s.a); }},
        {"computeGeneralizedGravityDerivatives",
         [&](const State& s) {
           pinocchio::computeGeneralizedGravityDerivatives(model, data, s.q, data.dtau_dq);
         }},
        {"computeABADerivatives",
         [&](const State& s) { pinocchio::computeABADerivatives(model, data, s.q, s.v, s.tau); }},
        {"computeJointTorqueRegressor",
         [&](const State& s) {
           pinocchio::computeJointTorqueRegressor(model, data, s.q, s.v, s.a);
         }},
        {"centerOfMass", [&](const State& s) { pinocchio::centerOfMass(model, data, s.q); }},
        {"jacobianCenterOfMass",
         [&](const State& s) { pinocchio::jacobianCenterOfMass(model, data, s.q); }},
        {"centerOfMass(q, v, 0)",
         [&](const State& s) { pinocchio::centerOfMass(model, data, s.q, s.v, zero); }},
        {"ccrba", [&](const State& s) { pinocchio::ccrba(model, data, s.q, s.v); }},
        {"computeCentroidalMomentum",
         [&](const State& s) { pinocchio::computeCentroidalMomentum(model, data, s.q, s.v); }},
        {"computeCentroidalMomentumTimeVariation",
         [&](const State& s) {
           pinocchio::computeCentroidalMomentumTimeVariation(model, data, s.q, s.v, zero);
         }},
        {"computeCoriolisMatrix",
         [&](const State& s) { pinocchio::computeCoriolisMatrix(model, data, s.q, s.v); }},
        {"computeMinverse", [&](const State& s) { pinocchio::computeMinverse(model, data, s.q); }},
        {"computeKineticEnergy",
         [&](const State& s) { pinocchio::computeKineticEnergy(model, data, s.q, s.v); }},
        {"computePotentialEnergy",
         [&](const State& s) { pinocchio::computePotentialEnergy(model, data, s.q); }},
        // The last frame (a spec's last [[frame]]), as the generated functions it is timed
        // against.
        {"getFrameVelocity",
         [&](const State& s) {
           pinocchio::forwardKinematics(model, data, s.q, s.v);
           pinocchio::getFrameVelocity(model, data, last_frame, lwa);
         }},
        {"getFrameClassicalAcceleration",
         [&](const State& s) {
           pinocchio::forwardKinematics(model, data, s.q, s.v, zero);
           pinocchio::getFrameClassicalAcceleration(model, data, last_frame, lwa);
         }},
        {"getFrameJacobianTimeVariation",
         [&](const State& s) {
           pinocchio::computeJointJacobiansTimeVariation(model, data, s.q, s.v);
           pinocchio::getFrameJacobianTimeVariation(model, data, last_frame, lwa, dj);
         }},
    };
    for (const auto& row : rows) {
      std::printf("  %-40s %10.1f ns/call\n", row.first, best_ns(states, row.second));
    }
  }
  return 0;
}
