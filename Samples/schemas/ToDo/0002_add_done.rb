# Version 2: items can be ticked off.
schema "0002 add done" do
  entity "ToDoItem" do
    integer64 :id, optional: false, indexed: true
    datetime  :created_at
    string    :action
    boolean   :done, default: false
  end
end
