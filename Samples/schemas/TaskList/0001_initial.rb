# A task list: one entity, the seed app's three fields.
schema "0001 initial" do
  entity "Task" do
    string    :task_description, optional: false
    integer16 :priority
    boolean   :completed, default: false
  end
end
