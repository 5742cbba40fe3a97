# Version 2: employees get a hire date.
schema "0002 add hire date" do
  entity "Employee" do
    string   :firstName, optional: false
    string   :lastName, optional: false
    datetime :hireDate
  end
end
