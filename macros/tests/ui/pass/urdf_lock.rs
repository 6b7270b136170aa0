// `lock = "JOINT=VALUE"` fixes a joint: it is no coordinate, and the links below it sit where
// the value puts them.
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
    <origin xyz="0 0 0.4"/><axis xyz="0 0 1"/></joint>
  <joint name="j3" type="revolute"><parent link="a"/><child link="c"/>
    <origin xyz="0 0 0.4"/><axis xyz="1 0 0"/></joint>
</robot>"#, lock = "j2=1.2");

fn main() {
    assert_eq!(vee::JOINT_NAMES, ["j1", "j3"]);
    // With j1 at zero, b is turned by j2's 1.2 about z.
    let (r, _) = vee::forward_kinematics_b(&[0.0, 0.4]);
    assert!((r[0][0] - 1.2f64.cos()).abs() < 1e-12, "{r:?}");
    assert!((r[1][0] - 1.2f64.sin()).abs() < 1e-12, "{r:?}");
}
