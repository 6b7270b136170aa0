// A URDF with two leaves imports as the whole tree, each leaf a frame; `frame = "..."` adds a
// frame on another link, and works together with `snap = false`.
quasidyn::robot!(r#"<robot name="vee">
  <link name="base"/>
  <link name="a"><inertial><mass value="1"/><origin xyz="0 0 0.2"/>
    <inertia ixx="0.01" iyy="0.01" izz="0.001"/></inertial></link>
  <link name="b"><inertial><mass value="0.5"/><origin xyz="0.3 0 0"/>
    <inertia ixx="0.001" iyy="0.01" izz="0.01"/></inertial></link>
  <link name="c"><inertial><mass value="0.5"/><origin xyz="0 0.3 0"/>
    <inertia ixx="0.01" iyy="0.001" izz="0.01"/></inertial></link>
  <joint name="j1" type="revolute"><parent link="base"/><child link="a"/>
    <origin xyz="0 0 0.1"/><axis xyz="0 0 1"/></joint>
  <joint name="j2" type="revolute"><parent link="a"/><child link="b"/>
    <origin xyz="0 0 0.4" rpy="1.57079632679 0 0"/><axis xyz="0 0 1"/></joint>
  <joint name="j3" type="revolute"><parent link="a"/><child link="c"/>
    <origin xyz="0 0 0.4"/><axis xyz="1 0 0"/></joint>
</robot>"#, frame = "a", snap = false);

fn main() {
    assert_eq!(vee::FRAME_NAMES, ["a", "b", "c"]);
    assert_eq!(vee::JOINT_NAMES, ["j1", "j2", "j3"]);
    // The frame on `a` sits at its joint, 0.1 above the base, whatever j1's angle.
    let (_, p) = vee::forward_kinematics_a(&[0.3, 0.2, -0.4]);
    assert!((p[2] - 0.1).abs() < 1e-12 && p[0].abs() < 1e-12, "{p:?}");
    let _ = vee::jacobian_b(&[0.3, 0.2, -0.4]);
}
