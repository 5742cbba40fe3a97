# Version 2: tasks get an optional due date.
schema "0002 add due date" do
  entity "Task" do
    string    :task_description, optional: false
    integer16 :priority
    boolean   :completed, default: false
    datetime  :due_date
  end
end
