# To-do items as a server sends them: an id, a creation time and the action to take.
schema "0001 initial" do
  entity "ToDoItem" do
    integer64 :id, optional: false, indexed: true
    datetime  :created_at
    string    :action
  end
end
