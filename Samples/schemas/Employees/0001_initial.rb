# An employee directory.
schema "0001 initial" do
  entity "Employee" do
    string :firstName, optional: false
    string :lastName, optional: false
  end
end
