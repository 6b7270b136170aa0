// A URDF with pi/2 written as 1.57079632679: snapped by default, kept as written with
// `snap = false`; the two modules agree to far better than 1e-9.
quasidyn::robot!(r#"<robot name="arm">
  <link name="base"/>
  <link name="a"><inertial><mass value="1"/><origin xyz="0 0 0.2"/>
    <inertia ixx="0.01" iyy="0.01" izz="0.001"/></inertial></link>
  <link name="b"><inertial><mass value="0.5"/><origin xyz="0.3 0 0"/>
    <inertia ixx="0.001" iyy="0.01" izz="0.01"/></inertial></link>
  <joint name="j1" type="revolute"><parent link="base"/><child link="a"/>
    <origin xyz="0 0 0.1"/><axis xyz="0 0 1"/></joint>
  <joint name="j2" type="revolute"><parent link="a"/><child link="b"/>
    <origin xyz="0 0 0.4" rpy="1.57079632679 0 0"/><axis xyz="0 0 1"/></joint>
</robot>"#, tip = "b");

quasidyn::robot!(r#"<robot name="arm">
  <link name="base"/>
  <link name="a"><inertial><mass value="1"/><origin xyz="0 0 0.2"/>
    <inertia ixx="0.01" iyy="0.01" izz="0.001"/></inertial></link>
  <link name="b"><inertial><mass value="0.5"/><origin xyz="0.3 0 0"/>
    <inertia ixx="0.001" iyy="0.01" izz="0.01"/></inertial></link>
  <joint name="j1" type="revolute"><parent link="base"/><child link="a"/>
    <origin xyz="0 0 0.1"/><axis xyz="0 0 1"/></joint>
  <joint name="j2" type="revolute"><parent link="a"/><child link="b"/>
    <origin xyz="0 0 0.4" rpy="1.57079632679 0 0"/><axis xyz="0 0 1"/></joint>
</robot>"#, tip = "b", snap = false, name = "literal");

fn main() {
    let q = [0.4, -0.7];
    let qd = [1.0, 2.0];
    let qdd = [0.5, -1.5];
    let a = arm::inverse_dynamics(&q, &qd, &qdd);
    let b = literal::inverse_dynamics(&q, &qd, &qdd);
    for (x, y) in a.iter().zip(&b) {
        assert!((x - y).abs() <= 1e-9 * x.abs().max(y.abs()).max(1.0), "{x} {y}");
    }
}
