quasidyn::robot!(r#"
<robot name="pendulum">
  <link name="base"/>
  <link name="rod">
    <inertial>
      <origin xyz="0 0 -0.5" rpy="0 0 0"/>
      <mass value="1.0"/>
      <inertia ixx="0.01" iyy="0.01" izz="0.001" ixy="0" ixz="0" iyz="0"/>
    </inertial>
  </link>
  <joint name="hinge" type="revolute">
    <parent link="base"/>
    <child link="rod"/>
    <axis xyz="0 1 0"/>
  </joint>
</robot>
"#, tip = "tool0");

fn main() {
    let _ = pendulum::jacobian(&[0.0]);
}
